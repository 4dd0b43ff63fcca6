// $rows [{id, props}]: the records of Papers the graph holds as stubs (read just before by
// identity/paper_states; loaders/writer.py), one row per id. Their properties are set and
// the Stub label taken off in one statement: the node is :Paper:Stub exactly while no record
// has described it, and no failure between two statements can leave it described and still
// a stub, or unlabelled and not described. MERGEd like any Paper record, and the REMOVE is
// a no-op on a Paper without the label: a record is never lost, whatever changed since.
//
// FalkorDB (4.16) updates a node's entry in the full-text index (title, abstract) at each
// clause that changes its labels or properties, whatever the change: a REMOVE after the SET
// indexed the record's text twice, ~390 against ~220 µs a row on abstracts of a real
// vocabulary (benchmarks/bench_fulltext_writes.py). Taken off first, the label leaves a stub
// with no text to index, and the SET indexes the text once; the end state is the same.
// `labels(p)` is read before the writes for FalkorDB's node-label matrix, not for its value:
// see identity/unmark_stubs (and, inside a load, store/falkordb/pending_changes.py).
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
WITH p, row, size(labels(p)) AS synchronised
REMOVE p:Stub
SET p += row.props
