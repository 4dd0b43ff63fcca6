// LEGOBench LGPLM: the papers behind each leaderboard, whichever way the loader linked them.
// Why: LGPLM retrieves passages from the full text of exactly these papers. A leaderboard
// reaches its papers through HAS_ENTRY (leaderboard files), through its rplm.xlsx title
// lines (TitleLine -OF_PAPER-> Paper) or through Papers with Code results.
// :param ids => ['lb:0123456789abcdef']
MATCH (lb:Leaderboard)-[:HAS_ENTRY]->(p:Paper)
WHERE lb.id IN $ids
RETURN lb.id AS leaderboard_id, p.id AS paper_id
UNION
MATCH (lb:Leaderboard)-[:HAS_ENTRY]->(:TitleLine)-[:OF_PAPER]->(p:Paper)
WHERE lb.id IN $ids
RETURN lb.id AS leaderboard_id, p.id AS paper_id
UNION
MATCH (p:Paper)-[:HAS_RESULT]->(:Result)-[:IN_LEADERBOARD]->(lb:Leaderboard)
WHERE lb.id IN $ids
RETURN lb.id AS leaderboard_id, p.id AS paper_id
