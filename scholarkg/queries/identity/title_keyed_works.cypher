// The titles and years of the described Papers known by title and year alone (a "paper:" id: a
// .bib entry with neither a DOI nor an arXiv id), not a benchmark family's node: the titles a
// catalogue load's records with ids ask identity/papers_by_title about (loaders/identity.py).
// A range on the id index ("paper;" is the first string after every "paper:…"), not STARTS
// WITH: FalkorDB scans every Paper for that.
MATCH (p:Paper)
WHERE p.id >= 'paper:' AND p.id < 'paper;' AND p.family_key IS NULL AND NOT p:Stub
RETURN DISTINCT p.title_norm AS title, p.year AS year
