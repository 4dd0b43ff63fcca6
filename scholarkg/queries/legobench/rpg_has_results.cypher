// LEGOBench RPG: does the graph hold Papers with Code Results (leaderboard context)?
MATCH (:Paper)-[:HAS_RESULT]->(r:Result)
RETURN r.id AS id
LIMIT 1
