// LEGOBench RPG: edges of the configuration's graph (CITES or COMPARES_WITH) leaving the
// given papers that have no cosine weight for this encoder yet (weights are stored once).
// identifiers: rel_type=CITES weight=w_minilm_l6
UNWIND $ids AS i
MATCH (a:Paper {id: i})-[r:{{rel_type}}]->(b:Paper)
WHERE r.{{weight}} IS NULL
RETURN a.id AS s, b.id AS t
