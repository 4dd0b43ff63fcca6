// One page of the one-shot upgrade of a graph loaded before the Stub label existed
// (`scholarkg load mark-stubs`, loaders/identity.mark_existing_stubs): up to $limit Papers
// with neither a title nor a source (Paper.is_stub: known only by an id) that lack the label
// get it. Run until it marks none.
MATCH (p:Paper)
WHERE p.title IS NULL AND p.source IS NULL AND NOT p:Stub
WITH p LIMIT $limit
SET p:Stub
RETURN count(p) AS marked
