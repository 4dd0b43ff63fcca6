// One page of a collection's documents: its own doc id, the Paper id and the text fields.
// $collection: "collection:beir:<name>"; paged by $skip / $limit in doc-id order.
MATCH (p:Paper)-[m:IN_COLLECTION]->(c:Collection {id: $collection})
RETURN m.doc_id AS doc_id, p.id AS id, p.title AS title, p.abstract AS text
ORDER BY doc_id
SKIP $skip LIMIT $limit
