// LEGOBench LGPLM: the leaderboards to generate (all when $ids is null), with their query.
// Why: an LGPLM instance is one leaderboard key <task, dataset, metric>; `row` (the
// rplm.xlsx row index, when the loader kept it) gives the same instance order as RPLM.
// :param ids => null
MATCH (lb:Leaderboard)
WHERE $ids IS NULL OR lb.id IN $ids
RETURN lb.id AS id, lb.task AS task, lb.dataset AS dataset, lb.metric AS metric, lb.row AS row
ORDER BY id
