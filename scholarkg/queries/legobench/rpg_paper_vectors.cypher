// LEGOBench RPG: candidate papers' text and cached vector (with content hash and model).
// The vector property is per encoder (services/embeddings.property_name).
// identifiers: prop=emb_minilm_l6
UNWIND $ids AS i
MATCH (n:Paper {id: i})
RETURN n.id AS id, n.title AS title, n.abstract AS abstract, n.{{prop}} AS v,
       n.{{prop}}_hash AS h, n.{{prop}}_model AS m
