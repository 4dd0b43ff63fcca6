// Kept current per record, step 1 of 2: $works [{id, rec, refs}]: the record rec (not its
// Paper's own record of its source, see Authorship.also) of Paper id was just (re)read with
// its whole author list refs (Author ids). An AUTHORED_BY edge only rec stated (no catalogue's
// mark, no other record) that rec no longer lists is deleted; unmark_also_authorships then
// takes rec off the others. Two statements: FalkorDB drops a DELETE that follows a SET.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.also = [w.rec] AND NOT b.id IN w.refs
  AND r.from_openalex IS NULL AND r.from_arxiv IS NULL AND r.from_crossref IS NULL
  AND r.from_s2 IS NULL AND r.from_bibtex IS NULL
DELETE r
RETURN count(*) AS deleted
