// Embeddings: whether any node of a label holds a vector of one model (none: a search of that
// label would ask the server for an index it does not have, and get its raw error). One row
// at most: asked before every search, it must not count them all.
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (n:{{label}})
WHERE n.{{prop}} IS NOT NULL
WITH n LIMIT 1
RETURN count(n) AS n
