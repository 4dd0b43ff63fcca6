// The $k nodes nearest to node $id by its FastRP vector (`scholarkg graph similar`), from the
// vector index $index; the node's vector is read here, never sent. Score = (1 + cos) / 2.
// $fetch (>= $k + 1) candidates are asked of the index, at most $k rows come back;
// $loadedOnly leaves reference stubs (label Stub) out of them.
// identifiers: label=Paper prop=fastrp_128
MATCH (n:{{label}} {id: $id})
WHERE n.{{prop}} IS NOT NULL
CALL db.index.vector.queryNodes($index, $fetch, n.{{prop}}) YIELD node, score
WITH n, node, score
WHERE node <> n AND (NOT $loadedOnly OR NOT 'Stub' IN labels(node))
RETURN node.id AS id, node.title AS title, 'Stub' IN labels(node) AS stub, score
ORDER BY score DESC, id
LIMIT $k
