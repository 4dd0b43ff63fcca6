// $ids: Papers a source record describing the work was just written for: they are no longer
// stubs (loaders/writer.py, loaders/identity.merge_papers). One row per node unmarked, with
// whether it has no relationship out (`bare`): a stub is only ever an end, so a work cited
// before its own record has none yet, and the writer may CREATE its record's relationships
// rather than MERGE them (merge_relationships' new_starts), as for a node its MERGE created.
// Counted before the REMOVE, every row kept: FalkorDB loses the REMOVE of a row a later
// WHERE filters out.
UNWIND $ids AS v
MATCH (p:Paper {id: v})
WHERE p:Stub
OPTIONAL MATCH (p)-[o]->()
WITH p, count(o) AS out
REMOVE p:Stub
RETURN p.id AS id, out = 0 AS bare
