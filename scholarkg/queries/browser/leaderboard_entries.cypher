// A leaderboard's entries, best score first, with the paper behind each entry.
// Why: LEGOBench asks models to rank exactly these entries; this is the gold order to
// compare against. Scores are sorted descending: flip the ORDER BY for error metrics
// (the data does not say which direction is better).
// :param leaderboardId => 'lb1'
// :example leaderboardId => COLLECT { MATCH (:Result)-[:IN_LEADERBOARD]->(l:Leaderboard) RETURN l.id ORDER BY l.id LIMIT 1 }[0]
MATCH (r:Result)-[:IN_LEADERBOARD]->(lb:Leaderboard {id: $leaderboardId})
OPTIONAL MATCH (p:Paper)-[:HAS_RESULT]->(r)
RETURN r.method AS method, r.score AS score, r.raw_score AS raw_score,
       p.id AS paper_id, p.title AS paper, p.year AS year
ORDER BY score DESC, method
