// Add $rows [{id, props}] to existing Papers (a merge's survivor, an id moved aside).
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
SET p += row.props
