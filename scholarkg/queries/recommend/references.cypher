// The seeds' references (the "text-then-references" signal, server side): each work cited by
// a seed scores the seed's weight. $seeds: Paper ids, $weights: one number per seed, $exclude:
// works absent from the reading (never answers), $limit.
UNWIND range(0, size($seeds) - 1) AS i
MATCH (s:Paper {id: $seeds[i]})-[:CITES]->(c:Paper)
WHERE NOT c.id IN $exclude
RETURN c.id AS id, sum($weights[i]) AS score, count(*) AS seeds
ORDER BY score DESC, id
LIMIT $limit
