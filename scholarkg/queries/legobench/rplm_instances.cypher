// LEGOBench RPLM: every leaderboard with its entries and their gold rank (best first).
// Why: an RPLM prompt lists exactly these entries (shuffled) and the gold answer is their
// gt_rank order. Entries are raw TitleLine nodes when the leaderboard came from rplm.xlsx
// (split and quoted lines are not papers, the LEGOBench graph model in docs/families/legobench.md) or Paper nodes when
// it came from a leaderboard file; the task uses TitleLine entries when a leaderboard has
// both. `row` is the rplm.xlsx row index when the loader kept it (instance order for the
// legobench-paper protocol, which scores the first 101 rows). $ids = null selects all.
// :param ids => null
MATCH (lb:Leaderboard)-[e:HAS_ENTRY]->(x)
WHERE (x:TitleLine OR x:Paper) AND ($ids IS NULL OR lb.id IN $ids)
RETURN lb.id AS id, lb.task AS task, lb.dataset AS dataset, lb.metric AS metric, lb.row AS row,
       CASE WHEN x:TitleLine THEN 'TitleLine' ELSE 'Paper' END AS kind,
       x.id AS entry_id, coalesce(x.text, x.title) AS title,
       e.gt_rank AS gt_rank, e.option_index AS option_index
ORDER BY id, kind, gt_rank, entry_id
