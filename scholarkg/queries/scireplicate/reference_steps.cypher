// The reference reasoning graph of one task ($task = "<paper_id>:<task_id>"), steps in line order.
MATCH (t:CodeTask {task_id: $task})<-[:IMPLEMENTS]-(i:Implementation {kind: 'reference'})
MATCH (i)-[:HAS_STEP]->(s:ReasoningStep)
OPTIONAL MATCH (s)-[:DATA_FLOW]->(n:ReasoningStep)
WITH s, collect(n.ordinal) AS flows_to
RETURN s.ordinal AS ordinal, s.text AS text, s.weight AS weight, s.start_line AS start_line,
       s.recovered AS recovered, flows_to
ORDER BY s.start_line
