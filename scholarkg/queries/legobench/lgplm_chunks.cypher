// LEGOBench LGPLM: full-text passages (Chunk nodes) of the given papers, in reading order.
// Why: BM25 picks the top-k passages per leaderboard from these; the prompt shows them.
// :param paperIds => ['arxiv:2101.00001']
MATCH (p:Paper)-[:HAS_CHUNK]->(c:Chunk)
WHERE p.id IN $paperIds
RETURN p.id AS paper_id, c.id AS chunk_id, c.ordinal AS ordinal, c.text AS text
ORDER BY paper_id, ordinal
