// One described Paper known by title and year alone (a "paper:" id: a .bib entry with neither a
// DOI nor an arXiv id), not a benchmark family's node, if the graph holds any: whether a
// catalogue load asks identity/papers_by_title for its records with ids (loaders/identity.py).
MATCH (p:Paper)
WHERE p.id STARTS WITH 'paper:' AND p.family_key IS NULL AND NOT p:Stub
RETURN p.id AS id
LIMIT 1
