// Leaderboard context for RPG: every Result on the *other* leaderboards where some candidate
// paper has a result, with each entry's paper date (the learned ranker reads a paper's
// time-detrended standing on those boards). The target leaderboard (by id, and by task,
// dataset and metric, case-insensitive) is filtered out here, so its Result nodes never leave
// the database; the caller checks every returned key again.
UNWIND $ids AS pid
MATCH (:Paper {id: pid})-[:HAS_RESULT]->(:Result)-[:IN_LEADERBOARD]->(l:Leaderboard)
WHERE l.id <> $target_id
  AND NOT (toLower(trim(l.task)) = $task AND toLower(trim(l.dataset)) = $dataset
           AND toLower(trim(l.metric)) = $metric)
WITH DISTINCT l
MATCH (p:Paper)-[:HAS_RESULT]->(r:Result)-[:IN_LEADERBOARD]->(l)
WHERE r.score IS NOT NULL
OPTIONAL MATCH (l)-[:USING_METRIC]->(m:Metric)
RETURN p.id AS paper, l.id AS board, l.task AS task, l.dataset AS dataset,
       l.metric AS metric, r.score AS score, m.direction AS direction,
       p.date AS date, p.year AS year, p.arxiv_id AS arxiv_id
