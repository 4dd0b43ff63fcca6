// New Papers that no source record describes ($rows [{id, props}], ids not in the graph:
// references known only by their ids; Paper.is_stub), created with the second label Stub
// (schema/ddl.STUB). Created, not MERGEd with ON CREATE SET p:Stub: adding a label to an
// existing node cost FalkorDB ~2-4 ms a node (loaders/writer.py checks the ids first).
UNWIND $rows AS row
CREATE (p:Paper:Stub {id: row.id})
SET p += row.props
