// Every leaderboard's identity triple, for resolving user-typed names (exact, then
// case-insensitive, then close-name suggestions, done by the caller).
MATCH (lb:Leaderboard)
OPTIONAL MATCH (r:Result)-[:IN_LEADERBOARD]->(lb)
WITH lb, count(r) AS results
RETURN lb.id AS id, lb.task AS task, lb.dataset AS dataset, lb.metric AS metric,
       lb.source AS source, results
ORDER BY id
