// Kept current, step 2 of 2 (after prune_s2_references): the S2 mark comes off the CITES
// edges of $works [{id, refs}] that S2 no longer lists; what other sources said stays.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_s2 = true AND NOT b.id IN w.refs
SET r.from_s2 = null
RETURN count(*) AS unmarked
