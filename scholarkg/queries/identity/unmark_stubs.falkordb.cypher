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
// Measured with each statement on a server of its own (benchmarks/bench_label_changes.py
// --papers 200000 --stubs 0.25 --isolated, 2026-12-01): 406.5 -> 315.0 µs a stub, a property
// change ~110 µs; adding a label gained nothing from the read (415.8 against 400.3).
// Inside a load the threshold is raised and this read merges nothing: the writer settles
// the matrix after the statement instead (store/falkordb/pending_changes.py).
UNWIND $ids AS v
MATCH (p:Paper {id: v})
WHERE p:Stub
OPTIONAL MATCH (p)-[o]->()
WITH p, count(o) AS out, size(labels(p)) AS synchronised
REMOVE p:Stub
RETURN p.id AS id, out = 0 AS bare
