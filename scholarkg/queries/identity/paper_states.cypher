// The Papers among $ids in the graph, each with whether it is a stub with no relationship out
// (`bare`): what the writer reads before it writes a Paper batch (loaders/writer.py). The ids
// not found are the batch's new nodes (its undo list); a stub the batch describes loses its
// label (identity/unmark_stubs, sent without reading its rows), and a bare one, a work cited
// before its own record, gets its record's relationships CREATEd rather than MERGEd
// (merge_relationships' new_starts), as a node the MERGE creates. Read before any of the
// batch's writes, so those all go out one after another (a store writing ahead runs them
// while the loader goes on) and a stub id the batch describes counts as found.
UNWIND $ids AS v
MATCH (p:Paper {id: v})
OPTIONAL MATCH (p:Stub)-[o]->()
WITH p, count(o) AS out
RETURN p.id AS id, p:Stub AND out = 0 AS bare
