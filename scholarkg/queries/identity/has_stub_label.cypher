// Whether the graph has Papers and whether any carries the Stub label: a graph with Papers
// and no Stub may predate the label (loaders/identity.mark_existing_stubs runs then).
OPTIONAL MATCH (p:Paper) WITH p LIMIT 1
OPTIONAL MATCH (s:Stub) WITH p, s LIMIT 1
RETURN p IS NOT NULL AS papers, s IS NOT NULL AS stubs
