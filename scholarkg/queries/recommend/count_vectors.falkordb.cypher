// How many works hold a vector in the given property (the dense ranker needs them). FalkorDB
// keeps each vector on a node of its own, (:Vec_<label>_<prop>)-[:VECTOR_OF]->(work)
// (store/falkordb/dialect.py, "where vectors live").
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (:Vec_{{label}}_{{prop}})-[:VECTOR_OF]->(p:{{label}})
RETURN count(p) AS n
