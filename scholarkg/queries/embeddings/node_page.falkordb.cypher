// Embeddings: one page of nodes in id order (keyset pagination on id) with the text fields
// ($fields, in order), the stored content hash and model, and whether a vector exists;
// never the vector itself, which would be the bulk of the transfer. FalkorDB keeps each
// vector, its hash and model on a node of its own (store/falkordb/dialect.py).
// identifiers: label=Paper prop=emb_minilm_l6
MATCH (n:{{label}})
WHERE n.id > $after
WITH n
ORDER BY n.id
LIMIT $limit
OPTIONAL MATCH (v:Vec_{{label}}_{{prop}})-[:VECTOR_OF]->(n)
RETURN n.id AS id, [f IN $fields | n[f]] AS texts, v.{{prop}}_hash AS h,
       v.{{prop}}_model AS m, v.{{prop}} IS NOT NULL AS has_vec
ORDER BY id
