// Resolve LEGOBench RPLM title lines to papers by normalised title (the LEGOBench graph model in docs/families/legobench.md).
// Why: answers are scored on raw lines, but graph signals (citations, comparisons) live on
// Paper nodes. Only a line whose text_norm equals exactly one Paper's title_norm is linked;
// split fragments match no paper and ambiguous titles are left alone. Idempotent (MERGE).
MATCH (t:TitleLine)
WHERE t.text_norm IS NOT NULL
MATCH (p:Paper {title_norm: t.text_norm})
WITH t, collect(p) AS papers
WHERE size(papers) = 1
WITH t, papers[0] AS p
MERGE (t)-[:OF_PAPER]->(p)
RETURN count(t) AS linked
