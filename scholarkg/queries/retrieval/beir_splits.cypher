// The qrels splits a BEIR-layout collection was loaded with, and their judged queries
// (so a run asking for a split that was not loaded can say which ones were).
// $source: "beir:<name>", $collection: "collection:beir:<name>"
MATCH (q:Query {source: $source})-[j:HAS_QREL]->(:Paper)-[:IN_COLLECTION]->(:Collection {id: $collection})
RETURN j.split AS split, count(DISTINCT q) AS n_queries
ORDER BY split
