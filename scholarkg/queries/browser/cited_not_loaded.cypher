// What this corpus cites most that is not loaded (reference stubs, most cited first).
// Why: the works your loaded records lean on that no record of yours describes: the first
// candidates to cite, and the ones to fill in (load their records) before reading the
// graph's rankings; `scholarkg suggest` finds them through the graph, never through text.
// :param limit => 25
MATCH (s:Stub)<-[:CITES]-(p:Paper)
WHERE NOT p:Stub
RETURN s.id AS id, count(DISTINCT p) AS cited_by_loaded_works,
       collect(DISTINCT p.id)[0..3] AS for_example
ORDER BY cited_by_loaded_works DESC, id
LIMIT $limit
