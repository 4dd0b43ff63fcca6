// Co-citation with the seeds (server side): for each work q citing a seed s and a work c <> s,
// the seed's weight. $seeds, $weights, $exclude (absent works: no citer, no answer), $limit.
UNWIND range(0, size($seeds) - 1) AS i
MATCH (s:Paper {id: $seeds[i]})<-[:CITES]-(q:Paper)-[:CITES]->(c:Paper)
WHERE c <> s AND NOT q.id IN $exclude AND NOT c.id IN $exclude
RETURN c.id AS id, sum($weights[i]) AS score
ORDER BY score DESC, id
LIMIT $limit
