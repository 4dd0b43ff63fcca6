// LEGOBench RPG ground truth stored in the graph: one row per leaderboard.
// Written by the PwC/LEGOBench loader as (:Leaderboard)-[:HAS_ENTRY {gt_rank}]->(:Paper);
// ranks and papers come back aligned, the caller sorts by rank.
MATCH (l:Leaderboard)-[e:HAS_ENTRY]->(p:Paper)
RETURN l.id AS id, l.task AS task, l.dataset AS dataset, l.metric AS metric,
       collect(e.gt_rank) AS ranks, collect(p.id) AS papers
ORDER BY id
