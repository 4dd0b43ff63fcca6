// A complex query's aspects (and sub-aspects) with the papers judged against each.
// Why: DORIS-MAE scores a paper by summing its per-aspect judgements; seeing them side
// by side explains why a candidate is relevant or not.
// :param queryId => 'q1'
// :example queryId => COLLECT { MATCH (q:Query)-[:HAS_ASPECT]->(:Aspect) RETURN q.id ORDER BY q.id LIMIT 1 }[0]
MATCH (q:Query {id: $queryId})-[:HAS_ASPECT|HAS_SUB_ASPECT]->(a:Aspect)
OPTIONAL MATCH (a)-[j:JUDGED]->(p:Paper)
WITH a, p, j
ORDER BY j.score DESC
RETURN a.aspect_id AS aspect, a.text AS text,
       collect(CASE WHEN p IS NULL THEN NULL ELSE {paper: p.id, score: j.score} END) AS judged
ORDER BY aspect
