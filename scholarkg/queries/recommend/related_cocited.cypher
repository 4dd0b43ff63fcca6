// Works cited together with one work (co-citation): how many works cite both. $id, $limit.
MATCH (p:Paper {id: $id})<-[:CITES]-(q:Paper)-[:CITES]->(c:Paper)
WHERE c <> p
RETURN c.id AS id, count(DISTINCT q) AS shared_citing
ORDER BY shared_citing DESC, id
LIMIT $limit
