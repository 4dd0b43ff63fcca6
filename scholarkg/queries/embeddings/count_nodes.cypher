// Embeddings: how many nodes carry the label.
// identifiers: label=Paper
MATCH (n:{{label}})
RETURN count(n) AS n
