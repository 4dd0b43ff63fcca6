// $ids: Papers a source record describing the work was just written for: they are no longer
// stubs (loaders/writer.py, loaders/identity.merge_papers). One row per node unmarked, with
// whether it has no relationship out (`bare`): a stub is only ever an end, so a work cited
// before its own record has none yet, and the writer may CREATE its record's relationships
// rather than MERGE them (merge_relationships' new_starts), as for a node its MERGE created.
// Counted before the REMOVE, every row kept: FalkorDB loses the REMOVE of a row a later
// WHERE filters out.
//
// `labels(p)` is read before the REMOVE for FalkorDB's node-label matrix, not for its value.
// FalkorDB 4.16 keeps the labels written since that matrix was last synchronised in a delta
// (all of them in a graph GRAPH.BULK just built, or one written by Cypher since the server
// started); a label removed there leaves an entry that the next node's re-indexing (part of
// every REMOVE) must settle, a pass over the delta for each node. Reading labels(p) makes the
// query synchronise the matrix first (a read does once the delta holds 10,000 entries).
// Measured (benchmarks/bench_label_changes.py --papers 200000, 2026-12-01): 497.5 -> 278.8
// µs a stub with 50,000 stubs, but 259.9 against 326.5 with 100,000, where the statements
// share one server and a read in one synchronises the matrix for the next; in the load, 8.6
// -> 6.2 s for the new works' update's unmarks (bench_openalex_server_time.py, one run each).
UNWIND $ids AS v
MATCH (p:Paper {id: v})
WHERE p:Stub
OPTIONAL MATCH (p)-[o]->()
WITH p, count(o) AS out, size(labels(p)) AS synchronised
REMOVE p:Stub
RETURN p.id AS id, out = 0 AS bare
