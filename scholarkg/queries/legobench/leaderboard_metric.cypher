// The direction of a leaderboard's metric ("higher", "lower" or "unknown").
// :param leaderboardId => 'lb:0000000000000000'
MATCH (lb:Leaderboard {id: $leaderboardId})
OPTIONAL MATCH (lb)-[:USING_METRIC]->(m:Metric)
RETURN lb.id AS id, lb.task AS task, lb.dataset AS dataset, lb.metric AS metric,
       coalesce(m.direction, "unknown") AS direction
