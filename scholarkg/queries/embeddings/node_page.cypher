// Embeddings: one page of nodes in id order (keyset pagination on id) with the text fields
// ($fields, in order), the stored content hash and model, and whether a vector exists;
// never the vector itself, which would be the bulk of the transfer.
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (n:{{label}})
WHERE n.id > $after
RETURN n.id AS id, [f IN $fields | n[f]] AS texts, n.{{prop}}_hash AS h,
       n.{{prop}}_model AS m, n.{{prop}} IS NOT NULL AS has_vec
ORDER BY n.id
LIMIT $limit
