// Bibliographic-coupling candidates: papers that cite the seeds too (share references with the
// citing paper), the citing paper itself excluded.
MATCH (c:Paper)-[:CITES]->(r:Paper)
WHERE r.id IN $seeds AND c.id <> $citing AND NOT c.id IN $seeds
RETURN c.id AS id, count(*) AS score
ORDER BY score DESC, id
LIMIT $limit
