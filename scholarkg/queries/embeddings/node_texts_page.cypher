// Embeddings / in-memory rankers: one page of nodes in id order with their text fields
// ($fields, in order), so BM25 and dense rankers see exactly the text vectors were made from.
// identifiers: label=Paper
MATCH (n:{{label}})
WHERE n.id > $after
RETURN n.id AS id, [f IN $fields | n[f]] AS texts
ORDER BY n.id
LIMIT $limit
