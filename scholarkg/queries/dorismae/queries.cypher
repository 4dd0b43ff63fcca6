// The DORIS-MAE queries with their text (instances of the full-query task).
// :param source => 'dorismae'
MATCH (q:Query {source: $source})
RETURN q.qid AS qid, q.text AS text, q.type AS type, q.split AS split, q.qid AS parent
