// The author lists of the Papers in $ids (aligning a source that names authors only by name
// to the list a work already has, loaders/identity.py): per AUTHORED_BY edge the Paper, the
// Author's id and name, the position, and the other properties an OpenAlex authorship sets (an
// update leaves out the ones a work already holds as stated:
// IdentityResolver._skip_stored_authorships), and for a name-only Author the sources listing it
// (whose spelling it holds, AuthorResolver._rank_names in loaders/author_identity.py): its
// marks from_arxiv, from_crossref, from_s2, from_bibtex, from_openalex, then its also keys, as
// one list (null for an Author with an id: an update's authors, whose rows cost no more).
// Columns, not properties(r): a map makes the embedded store's client decode the whole reply
// the slow way.
UNWIND $ids AS v
MATCH (p:Paper {id: v})-[r:AUTHORED_BY]->(a:Author)
RETURN p.id AS paper, a.id AS id, a.name AS name, r.position AS position,
       r.institutions AS institutions, r.raw_name AS raw_name, r.from_openalex AS from_openalex,
       CASE WHEN a.id STARTS WITH 'author:'
            THEN [r.from_arxiv, r.from_crossref, r.from_s2, r.from_bibtex, r.from_openalex]
                 + coalesce(r.also, [])
       END AS listed_by
