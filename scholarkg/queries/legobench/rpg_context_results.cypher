// Leaderboard context for RPG: results of the candidate papers on *other* leaderboards.
// The target leaderboard (same task, dataset and metric, case-insensitive) is filtered out
// here, so its Result nodes never leave the database; the caller checks the key again.
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})-[:HAS_RESULT]->(r:Result)-[:IN_LEADERBOARD]->(l:Leaderboard)
WHERE r.score IS NOT NULL AND l.id <> $target_id
  AND NOT (toLower(trim(l.task)) = $task AND toLower(trim(l.dataset)) = $dataset
           AND toLower(trim(l.metric)) = $metric)
OPTIONAL MATCH (l)-[:USING_METRIC]->(m:Metric)
RETURN p.id AS paper, l.id AS board, l.task AS task, l.dataset AS dataset,
       l.metric AS metric, r.score AS score, m.direction AS direction
