// Kept current per record, step 2 of 2 (after prune_also_authorships): rec comes off the also
// list of the AUTHORED_BY edges of $works [{id, rec, refs}] that it no longer lists.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE w.rec IN r.also AND NOT b.id IN w.refs
WITH r, [x IN r.also WHERE x <> w.rec] AS rest
SET r.also = CASE WHEN size(rest) = 0 THEN null ELSE rest END
RETURN count(r) AS unmarked
