// Kept current, step 1 of 2: $works [{id, refs}] are Papers whose S2 Graph API paper was just (re)read
// with its whole reference list `refs` (Paper ids). A CITES edge S2 asserted before but no
// longer lists, and that carries nothing else (no other source's mark, no property), is
// deleted; unmark_s2_references then takes the mark off the others (edges from other
// sources stay). Two statements: FalkorDB drops a DELETE that follows a SET in one query.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.from_s2 = true AND NOT b.id IN w.refs AND size(keys(r)) = 1
DELETE r
RETURN count(*) AS deleted
