// The text of some works (the fit's training queries are works of the graph), with their
// stub flag: only works a source record described are training queries.
UNWIND $ids AS x
MATCH (p:Paper {id: x})
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, 'Stub' IN labels(p) AS stub
