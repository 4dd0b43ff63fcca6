// Co-citation candidates: papers cited together with the seeds by papers other than $citing.
// $seeds: the citing paper's other references; $citing is excluded as co-citer and candidate.
// score = number of (seed, co-citing paper) pairs that also cite the candidate.
MATCH (q:Paper)-[:CITES]->(r:Paper)
WHERE r.id IN $seeds AND q.id <> $citing
WITH q, count(r) AS shared
MATCH (q)-[:CITES]->(c:Paper)
WHERE c.id <> $citing AND NOT c.id IN $seeds
RETURN c.id AS id, sum(shared) AS score
ORDER BY score DESC, id
LIMIT $limit
