// Every relationship of the Paper $id, both directions, with the other end's label and id:
// what a merge moves onto the surviving Paper (loaders/identity.py).
MATCH (b:Paper {id: $id})-[r]->(x)
RETURN type(r) AS type, 'out' AS dir, labels(x)[0] AS label, x.id AS other, properties(r) AS props
UNION ALL
MATCH (b:Paper {id: $id})<-[r]-(x)
RETURN type(r) AS type, 'in' AS dir, labels(x)[0] AS label, x.id AS other, properties(r) AS props
