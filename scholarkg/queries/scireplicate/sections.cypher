// Every section of a paper in document order (SearchLiterature reads the citing sentences).
MATCH (p:Paper {id: $paper})-[:HAS_SECTION]->(s:Section)
RETURN s.id AS id, s.ordinal AS ordinal, s.title AS title, s.label AS label, s.text AS text
ORDER BY s.ordinal
