// Title and stub flag (label Stub: a reference no source record described) of a few ranked
// nodes, to label a ranked list; null title where a node has none.
// identifiers: label=Paper
UNWIND $ids AS x
MATCH (n:{{label}} {id: x})
RETURN n.id AS id, n.title AS title, 'Stub' IN labels(n) AS stub
