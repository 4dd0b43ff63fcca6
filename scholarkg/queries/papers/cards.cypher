// What a ranked list prints beside each Paper id: title, year, and whether it is a stub (a
// reference no source record described: label Stub). Unknown ids give no row.
UNWIND $ids AS x
MATCH (p:Paper {id: x})
RETURN p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
