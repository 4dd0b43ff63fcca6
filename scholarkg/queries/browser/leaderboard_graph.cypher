// A leaderboard as a graph: its task, dataset and metric, its results and their papers.
// Why: the picture behind `scholarkg leaderboard show`; click a paper in the explorer to
// see what it cites and which other leaderboards it appears on.
// :param leaderboardId => 'lb1'
// :example leaderboardId => COLLECT { MATCH (:Result)-[:IN_LEADERBOARD]->(l:Leaderboard) RETURN l.id ORDER BY l.id LIMIT 1 }[0]
MATCH (lb:Leaderboard {id: $leaderboardId})
OPTIONAL MATCH (lb)-[d]->(x)
WHERE x:Task OR x:Dataset OR x:Metric
OPTIONAL MATCH (r:Result)-[i:IN_LEADERBOARD]->(lb)
OPTIONAL MATCH (p:Paper)-[h:HAS_RESULT]->(r)
RETURN lb, d, x, r, i, h, p
