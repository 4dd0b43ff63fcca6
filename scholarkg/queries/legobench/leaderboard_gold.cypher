// A leaderboard's ground-truth entries (HAS_ENTRY) in gold order: LEGOBench title lines (with
// the paper a line resolved to, if any) or synthetic ground-truth papers.
// Title lines carry `text`, papers do not: that tells the two entry kinds apart portably.
// :param leaderboardId => 'lego:rplm:0'
MATCH (lb:Leaderboard {id: $leaderboardId})-[e:HAS_ENTRY]->(x)
OPTIONAL MATCH (x)-[:OF_PAPER]->(lp:Paper)
RETURN e.gt_rank AS gt_rank, e.option_index AS option_index, e.score AS score,
       e.method AS method, x.text AS line,
       CASE WHEN x.text IS NULL THEN x.id ELSE lp.id END AS paper_id,
       coalesce(lp.title, x.title) AS paper_title, coalesce(lp.arxiv_id, x.arxiv_id) AS arxiv_id
ORDER BY gt_rank
