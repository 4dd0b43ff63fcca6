// One paper's card: authors in order, venue, reference and citation counts, code links.
// Why: a quick check that loaders merged a paper's metadata from all sources into one node.
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (p:Paper)<-[:CITES]-(:Paper) WHERE NOT p:Stub WITH p, count(*) AS n RETURN p.id ORDER BY n DESC, p.id LIMIT 1 }[0]
MATCH (p:Paper {id: $paperId})
OPTIONAL MATCH (p)-[au:AUTHORED_BY]->(a:Author)
WITH p, a ORDER BY au.position
WITH p, collect(a.name) AS authors
OPTIONAL MATCH (p)-[:IN_VENUE]->(v:Venue)
OPTIONAL MATCH (p)-[:HAS_CODE]->(repo:Repository)
RETURN p.id AS id, p.title AS title, p.year AS year, authors, v.name AS venue,
       size([(p)-[:CITES]->(ref:Paper) | ref]) AS references,
       size([(citer:Paper)-[:CITES]->(p) | citer]) AS cited_by,
       collect(DISTINCT repo.url) AS code
