// Kept current, step 2 of 2 (after prune_arxiv_authorships): the arxiv mark comes off the
// AUTHORED_BY edges of $works [{id, refs}] that arxiv no longer lists; other catalogues' stay.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_arxiv = true AND NOT b.id IN w.refs
SET r.from_arxiv = null
RETURN count(*) AS unmarked
