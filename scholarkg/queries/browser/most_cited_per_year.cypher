// The most-cited papers of each publication year (citations counted inside this graph).
// Why: shows at a glance which papers dominate the loaded corpus, year by year, and
// whether the citation edges were loaded at all (all zeros means they were not).
// :param perYear => 5
MATCH (p:Paper)
WHERE p.year IS NOT NULL
OPTIONAL MATCH (:Paper)-[c:CITES]->(p)
WITH p, count(c) AS citations
ORDER BY citations DESC, p.id
WITH p.year AS year, collect({id: p.id, title: p.title, citations: citations}) AS ranked
RETURN year, ranked[0..$perYear] AS top
ORDER BY year
