// One task by its global key ($task = "<paper_id>:<task_id>"), with its paper's graph id.
MATCH (p:Paper)-[:HAS_TASK]->(t:CodeTask {task_id: $task})
RETURN p.id AS paper, properties(t) AS task
