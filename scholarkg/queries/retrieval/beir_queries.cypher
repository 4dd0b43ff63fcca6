// The queries of a BEIR-layout collection judged in one split, with their qrels.
// $source: "beir:<name>", $collection: "collection:beir:<name>", $split: e.g. "test"
MATCH (q:Query {source: $source})-[j:HAS_QREL]->(p:Paper)-[m:IN_COLLECTION]->(c:Collection {id: $collection})
WHERE j.split = $split
RETURN q.id AS id, q.qid AS qid, q.text AS text,
       collect({doc_id: m.doc_id, score: j.score}) AS qrels
ORDER BY qid
