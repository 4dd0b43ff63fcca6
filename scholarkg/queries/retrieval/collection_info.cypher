// A collection's node and its document count (is it loaded? how big?).
MATCH (c:Collection {id: $collection})
OPTIONAL MATCH (p:Paper)-[:IN_COLLECTION]->(c)
RETURN c.name AS name, c.kind AS kind, count(p) AS n_docs
