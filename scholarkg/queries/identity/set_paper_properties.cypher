// Add $rows [{id, props}] to existing Papers (a merge's survivor, an id moved aside, the
// fields a source's record no longer gives set to null). A row that changes nothing is left
// out (a null prop for a property the Paper lacks, a value it holds): FalkorDB re-indexes a
// Paper on every SET, the full-text index included, and in an update most works' records
// clear fields that are already absent (~90 µs a Paper, bench_openalex_server_time.py).
// The test is a column, then filtered: FalkorDB 4.16 filtering `WITH p, row WHERE any(k IN
// keys(row.props) …)` directly drops the rows whose map holds a null (the clearing ones).
UNWIND $rows AS row
MATCH (p:Paper {id: row.id})
WITH p, row, any(k IN keys(row.props) WHERE coalesce(p[k] <> row.props[k], p[k] IS NOT NULL OR row.props[k] IS NOT NULL)) AS changes
WHERE changes
SET p += row.props
