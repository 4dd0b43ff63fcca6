// How many works hold a vector in the given property (the dense ranker needs them).
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (p:{{label}})
WHERE p.{{prop}} IS NOT NULL
RETURN count(p) AS n
