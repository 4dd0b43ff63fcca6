// Whether node $id exists and holds a FastRP vector (the error `graph similar` gives).
// FalkorDB keeps each vector on a node of its own (store/falkordb/dialect.py).
// identifiers: label=Paper prop=fastrp_128
MATCH (n:{{label}} {id: $id})
OPTIONAL MATCH (v:Vec_{{label}}_{{prop}})-[:VECTOR_OF]->(n)
RETURN v IS NOT NULL AS has_vector
