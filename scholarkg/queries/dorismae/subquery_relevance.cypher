// Relevance of the two-aspect sub-queries: the same aggregation over the sub-query's own
// units (its two aspects and their sub-aspects, USES_ASPECT) and its parent's pool.
// :param source => 'dorismae'
// :param judge => 'gpt'
MATCH (s:SubQuery {source: $source})-[:USES_ASPECT]->(u:Aspect)
WITH s, collect(DISTINCT u) AS units
MATCH (s)-[:DERIVED_FROM]->(q:Query)-[c:HAS_CANDIDATE]->(p:Paper)
UNWIND units AS u
OPTIONAL MATCH (u)-[j:JUDGED {source: $judge}]->(p)
WITH s, p, c.position AS position, size(units) AS n_units, sum(coalesce(j.score, 0.0)) AS raw
RETURN s.qid AS qid, p.doris_abstract_id AS abstract_id, position, n_units, raw
