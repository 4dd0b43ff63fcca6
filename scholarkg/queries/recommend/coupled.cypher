// Bibliographic coupling with the seeds (server side): for each reference r of a seed s and
// each other work c citing r, the seed's weight. $seeds, $weights, $exclude, $limit.
UNWIND range(0, size($seeds) - 1) AS i
MATCH (s:Paper {id: $seeds[i]})-[:CITES]->(r:Paper)<-[:CITES]-(c:Paper)
WHERE c <> s AND NOT r.id IN $exclude AND NOT c.id IN $exclude
RETURN c.id AS id, sum($weights[i]) AS score
ORDER BY score DESC, id
LIMIT $limit
