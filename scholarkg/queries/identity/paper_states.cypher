// rows-in-one-record: id, bare, stub
// falkordb-joined-rows: id str, bare bool, stub bool
// The Papers among $ids in the graph, each with whether it is a stub (`stub`) and a stub with
// no relationship out (`bare`): what the writer reads before it writes a Paper batch
// (loaders/writer.py). The ids not found are the batch's new nodes (its undo list); a stub
// the batch describes is written by identity/describe_stubs, which takes its label off in
// the same statement, and a bare one, a work cited
// before its own record, gets its record's relationships CREATEd rather than MERGEd
// (merge_relationships' new_starts), as a node the MERGE creates. Read before any of the
// batch's writes, so those all go out one after another (a store writing ahead runs them
// while the loader goes on) and a stub id the batch describes counts as found.
// Two branches: a described Paper is answered by its index seek alone, and only a stub's
// relationships out are counted (counting them for every Paper expanded each work's ~25
// edges: 110 µs a Paper of a quarterly-style update, bench_openalex_server_time.py).
UNWIND $ids AS v
MATCH (p:Paper {id: v})
WHERE NOT p:Stub
RETURN p.id AS id, false AS bare, false AS stub
UNION ALL
UNWIND $ids AS v
MATCH (p:Paper {id: v})
WHERE p:Stub
OPTIONAL MATCH (p)-[o]->()
WITH p, count(o) AS out
RETURN p.id AS id, out = 0 AS bare, true AS stub
