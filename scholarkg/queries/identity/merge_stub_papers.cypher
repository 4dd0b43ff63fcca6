// Papers that no source record describes ($rows [{id, props}]: a reference known only by its
// ids; Paper.is_stub): a node this creates gets the second label Stub (schema/ddl.STUB); an
// existing node only gains the ids it lacked, its labels are left as they are
// (loaders/writer.py).
UNWIND $rows AS row
MERGE (p:Paper {id: row.id})
ON CREATE SET p:Stub
SET p += row.props
