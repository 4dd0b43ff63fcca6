// Papers most often cited together with a given paper (co-citation).
// Why: co-cited papers are the classic relatedness signal behind citation recommendation;
// use it to sanity-check a recommender's top results for a paper.
// :param paperId => 'p1'
// :param limit => 25
MATCH (p:Paper {id: $paperId})<-[:CITES]-(citer:Paper)-[:CITES]->(other:Paper)
WHERE other <> p
RETURN other.id AS id, other.title AS title, count(DISTINCT citer) AS co_citations
ORDER BY co_citations DESC, id
LIMIT $limit
