// Add $rows [{id, props}] to existing Authors (a merge's survivor).
UNWIND $rows AS row
MATCH (a:Author {id: row.id})
SET a += row.props
