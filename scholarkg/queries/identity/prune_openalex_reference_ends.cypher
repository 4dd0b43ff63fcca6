// Kept current, step 1 of 2, when the ends are known: $works [{id, gone}] are Papers whose
// openalex record was just (re)read and `gone` the ends of the CITES edges openalex stated
// before and no longer lists (identity/stored_openalex_references read them a moment ago,
// loaders/identity.py). Those edges that carry nothing else are deleted, as
// prune_openalex_references deletes them, but each edge of the work is checked against the
// ends it lost, not against its whole list (2 ends, not 20, when a list changed a little);
// unmark_openalex_reference_ends takes the mark off the others. The edges are scanned, not
// sought end by end: where the lists lost every end, the seeks took the managed Neo4j 2.4 s
// for 2,000 works, the whole-list scan under 1.2 s (bench_openalex_server_time.py).
UNWIND $works AS w
MATCH (:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_openalex = true AND b.id IN w.gone AND size(keys(r)) = 1
DELETE r
RETURN count(*) AS deleted
