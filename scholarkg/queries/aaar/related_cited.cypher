// Related-work context: papers the given papers cite (with a title), a few per paper.
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})-[:CITES]->(q:Paper)
WHERE q.title IS NOT NULL
RETURN pid AS paper, q.id AS id, q.title AS title, q.abstract AS abstract
ORDER BY paper, id
