// One page of a collection's documents: its own doc id, the Paper id and the text fields.
// $collection: "collection:beir:<name>"; paged by $skip / $limit in doc-id order.
// The text is the collection's: kept on the edge for a document whose node other sources
// share (own_text: an arXiv id or a DOI; schema/retrieval.py), the Paper's otherwise.
MATCH (p:Paper)-[m:IN_COLLECTION]->(c:Collection {id: $collection})
RETURN m.doc_id AS doc_id, p.id AS id,
       CASE WHEN m.own_text THEN m.doc_title ELSE p.title END AS title,
       CASE WHEN m.own_text THEN m.doc_text ELSE p.abstract END AS text
ORDER BY doc_id
SKIP $skip LIMIT $limit
