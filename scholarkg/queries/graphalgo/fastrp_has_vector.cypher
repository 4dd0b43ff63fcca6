// Whether node $id exists and holds a FastRP vector (the error `graph similar` gives).
// identifiers: label=Paper prop=fastrp_128
MATCH (n:{{label}} {id: $id})
RETURN n.{{prop}} IS NOT NULL AS has_vector
