// Peer reviews of a paper with the weaknesses each reviewer raised.
// Why: AAAR-1.0 and ReviewCritique tasks compare generated weaknesses with these.
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (:Review)-[:REVIEWS]->(p:Paper) RETURN p.id ORDER BY p.id LIMIT 1 }[0]
MATCH (r:Review)-[:REVIEWS]->(p:Paper {id: $paperId})
OPTIONAL MATCH (r)-[:HAS_WEAKNESS]->(w:Weakness)
RETURN r.reviewer AS reviewer, r.rating AS rating, r.decision AS decision,
       collect(w.text) AS weaknesses
ORDER BY reviewer
