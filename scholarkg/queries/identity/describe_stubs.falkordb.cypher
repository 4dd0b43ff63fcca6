// $rows [{id, props}]: the records of Papers the graph holds as stubs (read just before by
// identity/paper_states; loaders/writer.py), one row per id. Their properties are set and
// the Stub label taken off in one statement: the node is :Paper:Stub exactly while no record
// has described it, and no failure between two statements can leave it described and still
// a stub, or unlabelled and not described. MERGEd like any Paper record, and the REMOVE is
// a no-op on a Paper without the label: a record is never lost, whatever changed since.
//
// FalkorDB re-indexes a node (its full-text fields included) each time a statement changes
// it; one statement instead of a MERGE and then identity/unmark_stubs re-indexes it once.
// `labels(p)` is read before the writes for FalkorDB's node-label matrix, not for its value:
// see identity/unmark_stubs (and, inside a load, store/falkordb/pending_changes.py).
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
WITH p, row, size(labels(p)) AS synchronised
SET p += row.props
REMOVE p:Stub
