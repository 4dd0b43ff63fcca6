// Loaded citing sentences with exactly one citation marker (citeBench's rule), with the
// citing paper, its year and the gold (cited) paper. $source: null for every source.
MATCH (c:CitationContext)-[:IN_PAPER]->(p:Paper), (c)-[:GOLD]->(g:Paper)
WHERE c.n_refs = 1 AND c.diag_dataset IS NULL AND ($source IS NULL OR c.source = $source)
RETURN c.id AS id, c.text AS text, c.section AS section, c.intent AS intent,
       p.id AS citing, p.year AS year, g.id AS gold
ORDER BY id
