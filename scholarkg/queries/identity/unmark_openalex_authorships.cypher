// Kept current, step 2 of 2 (after prune_openalex_authorships): the openalex mark comes off the
// AUTHORED_BY edges of $works [{id, refs}] that openalex no longer lists; other catalogues' stay.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_openalex = true AND NOT b.id IN w.refs
SET r.from_openalex = null
RETURN count(*) AS unmarked
