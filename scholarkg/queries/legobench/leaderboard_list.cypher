// Leaderboards with their entry counts, optionally only those of some tasks (exact names).
// Why: `scholarkg leaderboard list` and name matching; results are PwC-style Result nodes
// (IN_LEADERBOARD), gold_entries are ground-truth HAS_ENTRY edges (LEGOBench, synthetic).
// $tasks is a list so that every spelling a user-typed name matched is one query.
// :param tasks => null
// :param limit => 100
MATCH (lb:Leaderboard)
WHERE $tasks IS NULL OR lb.task IN $tasks
OPTIONAL MATCH (r:Result)-[:IN_LEADERBOARD]->(lb)
WITH lb, count(r) AS results
OPTIONAL MATCH (lb)-[e:HAS_ENTRY]->()
WITH lb, results, count(e) AS gold_entries
OPTIONAL MATCH (lb)-[:USING_METRIC]->(m:Metric)
RETURN lb.id AS id, lb.task AS task, lb.dataset AS dataset, lb.metric AS metric,
       lb.source AS source, coalesce(m.direction, "unknown") AS direction, results, gold_entries
ORDER BY task, dataset, metric, id
LIMIT $limit
