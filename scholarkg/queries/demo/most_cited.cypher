// Demo: the most-cited papers of the graph.
MATCH (p:Paper)-[:CITES]->(q:Paper)
RETURN q.title AS title, q.date AS date, count(p) AS citations
ORDER BY citations DESC, title
LIMIT $k
