// A leaderboard's results, best first, in the ORKG-style Result pattern.
// Why: `scholarkg leaderboard show`. The direction comes from the caller (the Metric node's
// `direction`): $lowerIsBetter = true sorts ascending. Unscored results (raw value kept, score
// null) go last. Ties break on method name so the order is stable.
// :param leaderboardId => 'lb:0000000000000000'
// :param lowerIsBetter => false
MATCH (r:Result)-[:IN_LEADERBOARD]->(lb:Leaderboard {id: $leaderboardId})
OPTIONAL MATCH (p:Paper)-[:HAS_RESULT]->(r)
WITH r, p, CASE WHEN r.score IS NULL THEN 1 ELSE 0 END AS unscored,
     CASE WHEN $lowerIsBetter THEN r.score ELSE -r.score END AS key
RETURN r.method AS method, r.score AS score, r.raw_score AS raw_score, r.date AS date,
       p.id AS paper_id, p.title AS paper_title, p.arxiv_id AS arxiv_id
ORDER BY unscored, key, method
