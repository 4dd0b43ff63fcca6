// Every relationship of the Author $id, both directions, with the other end's label (not the
// Stub marker) and id, and the Author's properties: what a merge of two Author nodes of one
// person moves onto the survivor (loaders/identity.merge_authors).
MATCH (b:Author {id: $id})<-[r]-(x)
RETURN type(r) AS type, 'in' AS dir, [l IN labels(x) WHERE l <> 'Stub'][0] AS label, x.id AS other, properties(r) AS props
UNION ALL
MATCH (b:Author {id: $id})-[r]->(x)
RETURN type(r) AS type, 'out' AS dir, [l IN labels(x) WHERE l <> 'Stub'][0] AS label, x.id AS other, properties(r) AS props
