// The described Papers of each normalised title and year of $rows [{title, year}] (identity
// resolution, IdentityResolver._title_matches in loaders/identity.py: a work known by title
// and year alone joins the one other work of its title and year), each with whether a
// benchmark family keys it (never joined by title). One title_norm index seek a row.
UNWIND $rows AS r
MATCH (p:Paper {title_norm: r.title})
WHERE p.year = r.year AND NOT p:Stub
RETURN r.title AS title, r.year AS year, p.id AS id, coalesce(p.family_key, false) AS family
