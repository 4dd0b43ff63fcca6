// Each sub-query's units with their text.
// :param source => 'dorismae'
MATCH (s:SubQuery {source: $source})-[:USES_ASPECT]->(u:Aspect)
RETURN DISTINCT s.qid AS qid, u.aspect_id AS unit, u.text AS text
