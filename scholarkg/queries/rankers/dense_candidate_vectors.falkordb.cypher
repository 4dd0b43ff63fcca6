// Dense ranker: stored vectors of a candidate pool (nodes without a vector are left out).
// FalkorDB keeps each vector on a node of its own, (:Vec_<label>_<prop>)-[:VECTOR_OF]->(n)
// (store/falkordb/dialect.py, "where vectors live").
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (n:{{label}})
WHERE n.id IN $ids
MATCH (v:Vec_{{label}}_{{prop}})-[:VECTOR_OF]->(n)
RETURN n.id AS id, v.{{prop}} AS v
