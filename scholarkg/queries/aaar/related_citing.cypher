// Related-work context: papers citing the given papers (with a title), a few per paper.
UNWIND $ids AS pid
MATCH (q:Paper)-[:CITES]->(p:Paper {id: pid})
WHERE q.title IS NOT NULL
RETURN pid AS paper, q.id AS id, q.title AS title, q.abstract AS abstract
ORDER BY paper, id
