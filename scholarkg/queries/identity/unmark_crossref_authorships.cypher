// Kept current, step 2 of 2 (after prune_crossref_authorships): the crossref mark comes off the
// AUTHORED_BY edges of $works [{id, refs}] that crossref no longer lists; other catalogues' stay.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_crossref = true AND NOT b.id IN w.refs
SET r.from_crossref = null
RETURN count(*) AS unmarked
