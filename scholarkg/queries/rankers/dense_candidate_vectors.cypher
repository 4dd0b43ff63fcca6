// Dense ranker: stored vectors of a candidate pool (nodes without a vector are left out).
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (n:{{label}})
WHERE n.id IN $ids AND n.{{prop}} IS NOT NULL
RETURN n.id AS id, n.{{prop}} AS v
