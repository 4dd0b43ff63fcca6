// Every relationship of the Paper $id, both directions, with the other end's label (its own
// label, not the Stub marker a Paper may carry beside it) and id: what a merge moves onto the
// surviving Paper (loaders/identity.py).
MATCH (b:Paper {id: $id})-[r]->(x)
RETURN type(r) AS type, 'out' AS dir, [l IN labels(x) WHERE l <> 'Stub'][0] AS label, x.id AS other, properties(r) AS props
UNION ALL
MATCH (b:Paper {id: $id})<-[r]-(x)
RETURN type(r) AS type, 'in' AS dir, [l IN labels(x) WHERE l <> 'Stub'][0] AS label, x.id AS other, properties(r) AS props
