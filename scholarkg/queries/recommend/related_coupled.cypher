// Works citing what one work cites (bibliographic coupling): how many references they share.
MATCH (p:Paper {id: $id})-[:CITES]->(r:Paper)<-[:CITES]-(c:Paper)
WHERE c <> p
RETURN c.id AS id, count(DISTINCT r) AS shared_cited
ORDER BY shared_cited DESC, id
LIMIT $limit
