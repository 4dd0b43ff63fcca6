// Step 1 of moving a work's authorship from a name-only Author to the person's node (a source
// that names authors by id lists someone the work already lists by name only,
// loaders/author_identity.move_authorships): $rows [{paper, old, new}]. The edge to `new`
// takes the old edge's properties it lacks and its source marks. Two statements: FalkorDB
// drops a DELETE that follows a SET in one query (drop_authorships is step 2).
UNWIND $rows AS row
MATCH (p:Paper {id: row.paper})-[r:AUTHORED_BY]->(:Author {id: row.old})
MATCH (b:Author {id: row.new})
MERGE (p)-[s:AUTHORED_BY]->(b)
SET s.position = coalesce(s.position, r.position),
    s.raw_name = coalesce(s.raw_name, r.raw_name),
    s.institutions = coalesce(s.institutions, r.institutions),
    s.from_openalex = coalesce(s.from_openalex, r.from_openalex),
    s.from_arxiv = coalesce(s.from_arxiv, r.from_arxiv),
    s.from_crossref = coalesce(s.from_crossref, r.from_crossref),
    s.from_bibtex = coalesce(s.from_bibtex, r.from_bibtex),
    s.from_s2 = coalesce(s.from_s2, r.from_s2),
    s.also = coalesce(s.also, r.also)
RETURN count(s) AS copied
