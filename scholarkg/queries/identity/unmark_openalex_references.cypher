// Kept current, step 2 of 2 (after prune_openalex_references): the openalex mark comes off the CITES
// edges of $works [{id, refs}] that openalex no longer lists; what other sources said stays.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_openalex = true AND NOT b.id IN w.refs
SET r.from_openalex = null
RETURN count(*) AS unmarked
