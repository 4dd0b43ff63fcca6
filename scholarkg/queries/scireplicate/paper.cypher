// A benchmark paper by its paper_id ($index) or graph id ($paper): SciReplicate look-ups' anchor.
MATCH (p:Paper)-[:HAS_TASK]->(t:CodeTask)
WHERE t.paper_index = $index OR p.id = $paper
RETURN DISTINCT p.id AS id, p.title AS title, t.paper_index AS paper_index
LIMIT 1
