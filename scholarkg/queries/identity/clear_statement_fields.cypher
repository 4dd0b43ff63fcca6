// Set $rows [{id, props}] on stored Statements: the null props are the values a source
// record stated before and no longer does (its reload replaces its whole statement; the
// writer's MERGE only adds), so a dropped value is not kept as if stated (loaders/identity.py).
UNWIND $rows AS row
MATCH (s:Statement {id: row.id})
SET s += row.props
