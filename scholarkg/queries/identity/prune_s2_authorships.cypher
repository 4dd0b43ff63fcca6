// Kept current, step 1 of 2: $works [{id, refs}] are Papers whose S2 paper record (a
// datasets' line or a Graph API paper) was just (re)read with its whole author list `refs`
// (Author ids). An AUTHORED_BY edge S2 asserted before but no longer lists, and that no
// catalogue lists, is deleted (its position was S2's), with its Author when that is a
// name-only one (`author:`, S2 gave no author id) the edge was the last relationship of (the
// catalogues' name-only Authors are dropped from the lists the resolver reads; S2's are not
// in them); unmark_s2_authorships then takes the mark off the others. Two statements:
// FalkorDB drops a DELETE that follows a SET in one query.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:AUTHORED_BY]->(b:Author)
WHERE r.from_s2 = true AND NOT b.id IN w.refs AND r.from_openalex IS NULL AND r.from_arxiv IS NULL
  AND r.from_crossref IS NULL AND r.from_bibtex IS NULL AND r.also IS NULL
WITH r, CASE WHEN b.id STARTS WITH 'author:' AND size([(b)--() | 1]) = 1 THEN b END AS lone
DELETE r, lone
RETURN count(*) AS deleted
