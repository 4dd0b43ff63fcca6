// The stored properties of the Authors in $ids (merging two Author nodes of one person).
MATCH (a:Author) WHERE a.id IN $ids
RETURN a.id AS id, properties(a) AS props
