// LEGOBench RPG: candidate papers' text and cached vector (with content hash and model).
// The vector property is per encoder (services/embeddings.property_name). FalkorDB keeps
// each vector, its hash and model on a node of its own (store/falkordb/dialect.py).
// identifiers: prop=emb_minilm_l6
UNWIND $ids AS i
MATCH (n:Paper {id: i})
OPTIONAL MATCH (v:Vec_Paper_{{prop}})-[:VECTOR_OF]->(n)
RETURN n.id AS id, n.title AS title, n.abstract AS abstract, v.{{prop}} AS v,
       v.{{prop}}_hash AS h, v.{{prop}}_model AS m
