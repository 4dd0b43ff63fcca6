// The stored properties of the Papers in $ids (merging two Papers, loaders/identity.py).
MATCH (p:Paper) WHERE p.id IN $ids
RETURN p.id AS id, properties(p) AS props
