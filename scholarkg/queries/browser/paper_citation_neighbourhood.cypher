// Citation neighbourhood of one paper: what it cites and what cites it.
// Why: the first thing to look at when a ranking puts a paper unexpectedly high or low;
// returning paths lets Neo4j Browser draw the graph.
// Set the paper first (paste into Browser):
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (p:Paper)<-[:CITES]-(:Paper) WHERE NOT p:Stub WITH p, count(*) AS n RETURN p.id ORDER BY n DESC, p.id LIMIT 1 }[0]
// :param limit => 200
MATCH path = (p:Paper {id: $paperId})-[:CITES]-(other:Paper)
RETURN path
LIMIT $limit
