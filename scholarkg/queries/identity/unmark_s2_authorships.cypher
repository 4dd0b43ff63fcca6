// Kept current, step 2 of 2 (after prune_s2_authorships): the S2 mark comes off the
// AUTHORED_BY edges of $works [{id, refs}] that S2 no longer lists; other sources' stay.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_s2 = true AND NOT b.id IN w.refs
SET r.from_s2 = null
RETURN count(*) AS unmarked
