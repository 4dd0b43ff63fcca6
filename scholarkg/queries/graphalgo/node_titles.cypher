// Titles of a few nodes by id, to label a ranked list (null where a node has no title).
// identifiers: label=Paper
UNWIND $ids AS x
MATCH (n:{{label}} {id: x})
RETURN n.id AS id, n.title AS title
