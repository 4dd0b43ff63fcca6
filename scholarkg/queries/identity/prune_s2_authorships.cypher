// Kept current, step 1 of 2: $works [{id, refs}] are Papers whose S2 paper record (a
// datasets' line or a Graph API paper) was just (re)read with its whole author list `refs`
// (Author ids). An AUTHORED_BY edge S2 asserted before but no longer lists, and that no
// catalogue lists, is deleted (its position was S2's); unmark_s2_authorships then takes the
// mark off the others. Not an edge to a name-only Author (`author:`, S2 gave no author id):
// that node is one per name, shared with the benchmark families' loaders, whose edges carry
// no source mark, so S2 cannot tell such an edge is its alone; it is only unmarked. Two
// statements: FalkorDB drops a DELETE that follows a SET in one query.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_s2 = true AND NOT b.id IN w.refs AND r.from_openalex IS NULL AND r.from_arxiv IS NULL
  AND r.from_crossref IS NULL AND r.from_bibtex IS NULL AND r.also IS NULL
  AND NOT b.id STARTS WITH 'author:'
DELETE r
RETURN count(*) AS deleted
