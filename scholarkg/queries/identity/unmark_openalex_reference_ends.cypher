// Kept current, step 2 of 2, when the ends are known (after prune_openalex_reference_ends):
// the openalex mark comes off the CITES edges of $works [{id, gone}] to the ends openalex no
// longer lists; what other sources said stays.
UNWIND $works AS w
MATCH (:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_openalex = true AND b.id IN w.gone
SET r.from_openalex = null
RETURN count(*) AS unmarked
