// The $k nodes nearest to node $id by its FastRP vector (`scholarkg graph similar`), from the
// label's vector index; the node's vector is read here, never sent. FalkorDB yields the cosine
// distance 1 - cos: the score is (1 + cos) / 2 = 1 - distance / 2, as on Neo4j.
// $fetch (>= $k + 1) candidates are asked of the index, at most $k rows come back;
// $loadedOnly leaves reference stubs (label Stub) out of them.
// identifiers: label=Paper prop=fastrp_128
MATCH (n:{{label}} {id: $id})
WHERE n.{{prop}} IS NOT NULL
CALL db.idx.vector.queryNodes('{{label}}', '{{prop}}', $fetch, n.{{prop}}) YIELD node, score
WITH n, node, score
WHERE node <> n AND (NOT $loadedOnly OR NOT 'Stub' IN labels(node))
RETURN node.id AS id, node.title AS title, 'Stub' IN labels(node) AS stub, 1.0 - score / 2.0 AS score
ORDER BY score DESC, id
LIMIT $k
