// The author lists of the Papers in $ids (aligning a source that names authors only by name
// to the list a work already has, loaders/identity.py): per AUTHORED_BY edge the Paper, the
// Author's id and name, the position, and the other properties an OpenAlex authorship sets (an
// update leaves out the ones a work already holds as stated:
// IdentityResolver._skip_stored_authorships), and the sources listing it (its marks and also
// keys: whose spelling a name-only Author holds, AuthorResolver._rank_names). Columns, not properties(r): a map makes the
// embedded store's client decode the whole reply the slow way.
UNWIND $ids AS v
MATCH (p:Paper {id: v})-[r:AUTHORED_BY]->(a:Author)
RETURN p.id AS paper, a.id AS id, a.name AS name, r.position AS position,
       r.institutions AS institutions, r.raw_name AS raw_name, r.from_openalex AS from_openalex,
       r.from_arxiv AS from_arxiv, r.from_crossref AS from_crossref, r.from_s2 AS from_s2,
       r.from_bibtex AS from_bibtex, r.also AS also
