// LEGOBench RPG: store the encoder's cosine weight on edges, one row per edge ($rows batch).
// identifiers: rel_type=CITES weight=w_minilm_l6
UNWIND $rows AS row
MATCH (a:Paper {id: row.s})-[r:{{rel_type}}]->(b:Paper {id: row.t})
SET r.{{weight}} = row.w
