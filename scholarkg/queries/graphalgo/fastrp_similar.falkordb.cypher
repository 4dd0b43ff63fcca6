// The $k nodes nearest to node $id by its FastRP vector (`scholarkg graph similar`), from the
// index of the vector nodes (:Vec_<label>_<prop>)-[:VECTOR_OF]->(node) (store/falkordb/
// dialect.py); the node's vector is read here, never sent. FalkorDB yields the cosine
// distance 1 - cos: the score is (1 + cos) / 2 = 1 - distance / 2, as on Neo4j.
// $fetch (>= $k + 1) candidates are asked of the index, at most $k rows come back;
// $loadedOnly leaves reference stubs (label Stub) out of them.
// identifiers: label=Paper prop=fastrp_128
MATCH (n:{{label}} {id: $id})<-[:VECTOR_OF]-(nv:Vec_{{label}}_{{prop}})
CALL db.idx.vector.queryNodes('Vec_{{label}}_{{prop}}', '{{prop}}', $fetch, nv.{{prop}})
YIELD node AS hit, score
MATCH (hit)-[:VECTOR_OF]->(node:{{label}})
WITH n, node, score
WHERE node <> n AND (NOT $loadedOnly OR NOT 'Stub' IN labels(node))
RETURN node.id AS id, node.title AS title, 'Stub' IN labels(node) AS stub, 1.0 - score / 2.0 AS score
ORDER BY score DESC, id
LIMIT $k
