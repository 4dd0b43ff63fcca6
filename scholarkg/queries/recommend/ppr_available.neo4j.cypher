// Whether the server has scholarkg's personalized PageRank procedure (the managed server's
// plugin jar; a Neo4j scholarkg did not start may lack it).
SHOW PROCEDURES YIELD name
WHERE name = 'scholarkg.recommend.ppr'
RETURN name
