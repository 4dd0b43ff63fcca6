// The stored properties of the Papers in $ids and whether each is a stub (merging two Papers,
// loaders/identity.py).
MATCH (p:Paper) WHERE p.id IN $ids
RETURN p.id AS id, properties(p) AS props, p:Stub AS stub
