// LEGOBench LGPLM gold: the (method, score) entries of each leaderboard.
// Why: MR/MP/SP compare the generated table with these method names and scores. Two
// sources: ground-truth entries HAS_ENTRY {gt_rank, method, score} (leaderboards.jsonl,
// source 'entry') and Papers with Code Results (source 'result'); the task uses the
// entries when a leaderboard has them, since PwC and the ground truth share the node.
// :param ids => ['lb:0123456789abcdef']
MATCH (lb:Leaderboard)-[e:HAS_ENTRY]->(:Paper)
WHERE lb.id IN $ids AND e.method IS NOT NULL
RETURN lb.id AS leaderboard_id, e.method AS method, e.score AS score, e.gt_rank AS rank,
       'entry' AS source
UNION
MATCH (r:Result)-[:IN_LEADERBOARD]->(lb:Leaderboard)
WHERE lb.id IN $ids AND r.method IS NOT NULL
RETURN lb.id AS leaderboard_id, r.method AS method, r.score AS score, null AS rank,
       'result' AS source
