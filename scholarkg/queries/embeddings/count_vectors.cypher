// Embeddings: how many nodes of a label hold a vector of one model (none: a search of that
// label would ask the server for an index it does not have, and get its raw error).
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (n:{{label}})
WHERE n.{{prop}} IS NOT NULL
RETURN count(n) AS n
