// The papers a citing paper cites (its reference list in the graph).
MATCH (p:Paper {id: $citing})-[:CITES]->(r:Paper)
RETURN r.id AS id
ORDER BY id
