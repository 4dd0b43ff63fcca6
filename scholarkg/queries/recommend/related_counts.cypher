// For a candidate list, the co-citation and coupling counts with work $id (rows say why).
UNWIND $ids AS x
MATCH (c:Paper {id: x})
OPTIONAL MATCH (p:Paper {id: $id})<-[:CITES]-(q:Paper)-[:CITES]->(c)
WITH c, count(DISTINCT q) AS shared_citing
OPTIONAL MATCH (p2:Paper {id: $id})-[:CITES]->(r:Paper)<-[:CITES]-(c)
RETURN c.id AS id, shared_citing, count(DISTINCT r) AS shared_cited
