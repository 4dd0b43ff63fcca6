// Papers most often cited together with a given paper (co-citation).
// Why: co-cited papers are the classic relatedness signal behind citation recommendation;
// use it to sanity-check a recommender's top results for a paper.
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (p:Paper)<-[:CITES]-(:Paper) WHERE NOT p:Stub WITH p, count(*) AS n RETURN p.id ORDER BY n DESC, p.id LIMIT 1 }[0]
// :param limit => 25
MATCH (p:Paper {id: $paperId})<-[:CITES]-(citer:Paper)-[:CITES]->(other:Paper)
WHERE other <> p
RETURN other.id AS id, other.title AS title, 'Stub' IN labels(other) AS stub,
       count(DISTINCT citer) AS co_citations
ORDER BY co_citations DESC, id
LIMIT $limit
