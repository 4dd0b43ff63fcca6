// $rows [{id, props}]: the records of Papers the graph holds as stubs (read just before by
// identity/paper_states; loaders/writer.py), one row per id. Their properties are set and
// the Stub label taken off in one statement: the node is :Paper:Stub exactly while no record
// has described it, and no failure between two statements can leave it described and still
// a stub, or unlabelled and not described. MERGEd like any Paper record, and the REMOVE is
// a no-op on a Paper without the label: a record is never lost, whatever changed since.
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
SET p += row.props
REMOVE p:Stub
