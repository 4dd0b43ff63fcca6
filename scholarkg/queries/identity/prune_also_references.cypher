// Kept current per record, step 1 of 2: $works [{id, rec, refs}]: the record rec (not its
// Paper's own record of its source, see Citation.also) of Paper id was just (re)read with its
// whole reference list refs (Paper ids). A CITES edge only rec stated (no source mark, no
// other property) that rec no longer lists is deleted; unmark_also_references then takes rec
// off the others. Two statements: FalkorDB drops a DELETE that follows a SET in one query.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE r.also = [w.rec] AND NOT b.id IN w.refs AND size(keys(r)) = 1
DELETE r
RETURN count(*) AS deleted
