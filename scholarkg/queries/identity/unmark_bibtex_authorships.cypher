// Kept current, step 2 of 2 (after prune_bibtex_authorships): the bibtex mark comes off the
// AUTHORED_BY edges of $works [{id, refs}] that bibtex no longer lists; other catalogues' stay.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_bibtex = true AND NOT b.id IN w.refs
SET r.from_bibtex = null
RETURN count(*) AS unmarked
