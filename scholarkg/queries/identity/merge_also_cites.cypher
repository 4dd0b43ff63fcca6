// CITES edges a source record states that is not its Paper's own record of that source
// (Citation.also / Authorship.also, loaders/writer.py): $rows [{start, end, props, rec}], rec
// the record's key "<source>:<record id>". A new edge takes the record's properties; an
// existing one keeps its own (the Paper's own record wins) and gains rec in its sorted also
// list, once. Returns how many rows found both endpoints.
UNWIND $rows AS row
MATCH (a:Paper {id: row.start})
MATCH (b:Paper {id: row.end})
MERGE (a)-[r:CITES]->(b)
ON CREATE SET r += row.props
SET r.also = CASE
  WHEN r.also IS NULL THEN [row.rec]
  WHEN row.rec IN r.also THEN r.also
  ELSE [x IN r.also WHERE x < row.rec] + [row.rec] + [x IN r.also WHERE x > row.rec]
END
RETURN count(r) AS written
