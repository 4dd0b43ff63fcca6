// Each query's units (aspects and sub-aspects) with their text, for aspect-aware rankers.
// :param source => 'dorismae'
MATCH (q:Query {source: $source})-[r:HAS_ASPECT|HAS_SUB_ASPECT]->(u:Aspect)
RETURN DISTINCT q.qid AS qid, u.aspect_id AS unit, u.text AS text
