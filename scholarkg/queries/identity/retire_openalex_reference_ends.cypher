// Kept current when the ends are known: $works [{id, gone}] are Papers whose openalex record
// was just (re)read and `gone` the ends of the CITES edges openalex stated before and no
// longer lists (identity/stored_openalex_references read them a moment ago,
// loaders/identity.py). Of those edges, one that carries nothing else is deleted, as
// prune_openalex_references deletes it; the others lose the openalex mark, as
// unmark_openalex_references takes it off (what other sources said stays). Each edge of the
// work is checked against the ends it lost, not against its whole list (2 ends, not 20, when
// a list changed a little).
//
// One statement, one scan of each work's edges: the delete and the unmark were two, each
// scanning the same edges, ~0.23 s each for 2,000 works of a quarterly-style update on the
// embedded store (bench_openalex_server_time.py). The FOREACHes take each edge one way or
// the other, never both (tests/loaders/test_stated_references.py checks the graph equals
// the whole-list prune and unmark's, on both backends). The edges are scanned, not
// sought end by end: where the lists lost every end, the seeks took the managed Neo4j 2.4 s
// for 2,000 works, the scan under 1.2 s.
UNWIND $works AS w
MATCH (:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_openalex = true AND b.id IN w.gone
WITH r, size(keys(r)) = 1 AS sole
FOREACH (_ IN CASE WHEN sole THEN [1] ELSE [] END | DELETE r)
FOREACH (_ IN CASE WHEN sole THEN [] ELSE [1] END | SET r.from_openalex = null)
RETURN count(CASE WHEN sole THEN 1 END) AS deleted, count(*) AS retired
