// OpenAlex's related_works of the works $works (the `related` property: OpenAlex W ids, in
// the record's order), as the Papers of the graph they name, first position first: the
// related-works baseline of `suggest --method related-works` (recommend/model.py). $limit.
UNWIND $works AS w
MATCH (q:Paper {id: w})
WHERE q.related IS NOT NULL
UNWIND range(0, size(q.related) - 1) AS i
MATCH (p:Paper {openalex_id: q.related[i]})
WITH p.id AS id, min(i) AS position
RETURN id, position
ORDER BY position, id
LIMIT $limit
