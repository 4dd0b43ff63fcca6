// Works to cite beside a paper's own references: what the works sharing its references cite.
// Why: the graph half of `scholarkg suggest` for a paper already in the graph: the works
// coupled with it (sharing references) vote, by references shared, for what they cite and
// it does not; stubs are flagged (found through the graph, never through text).
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (p:Paper)-[:CITES]->(:Paper) WHERE NOT p:Stub WITH p, count(*) AS n RETURN p.id ORDER BY n DESC, p.id LIMIT 1 }[0]
// :param limit => 25
MATCH (p:Paper {id: $paperId})-[:CITES]->(r:Paper)<-[:CITES]-(peer:Paper)
WHERE peer <> p
WITH p, peer, count(DISTINCT r) AS shared
MATCH (peer)-[:CITES]->(c:Paper)
WHERE c <> p AND NOT (p)-[:CITES]->(c)
RETURN c.id AS id, c.title AS title, 'Stub' IN labels(c) AS stub,
       sum(shared) AS score, count(DISTINCT peer) AS cited_by_peers
ORDER BY score DESC, id
LIMIT $limit
