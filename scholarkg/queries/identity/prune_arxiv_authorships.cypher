// Kept current, step 1 of 2: $works [{id, refs}] are Papers whose arxiv record was just (re)read
// with its whole author list `refs` (Author ids). An AUTHORED_BY edge arxiv asserted before but
// no longer lists, and that no other catalogue lists, is deleted (its position and institutions
// were arxiv's); unmark_arxiv_authorships then takes the mark off the others. Two statements:
// FalkorDB drops a DELETE that follows a SET in one query.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_arxiv = true AND NOT b.id IN w.refs AND r.from_openalex IS NULL AND r.from_crossref IS NULL
  AND r.from_bibtex IS NULL AND r.also IS NULL AND r.from_s2 IS NULL
DELETE r
RETURN count(*) AS deleted
