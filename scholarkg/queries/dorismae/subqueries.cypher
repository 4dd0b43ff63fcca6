// The two-aspect sub-queries with their text and parent query.
// :param source => 'dorismae'
MATCH (s:SubQuery {source: $source})-[:DERIVED_FROM]->(q:Query)
RETURN s.qid AS qid, s.text AS text, q.type AS type, q.split AS split, q.qid AS parent
