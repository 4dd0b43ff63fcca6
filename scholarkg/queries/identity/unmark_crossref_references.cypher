// Kept current, step 2 of 2 (after prune_crossref_references): the crossref mark comes off the CITES
// edges of $works [{id, refs}] that crossref no longer lists; what other sources said stays.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_crossref = true AND NOT b.id IN w.refs
SET r.from_crossref = null
RETURN count(*) AS unmarked
