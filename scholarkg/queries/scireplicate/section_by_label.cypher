// SearchSection: a section of a paper by its \label or its title (case-insensitive, exact first).
MATCH (p:Paper {id: $paper})-[:HAS_SECTION]->(s:Section)
WHERE toLower(coalesce(s.label, '')) = toLower($label) OR toLower(s.title) = toLower($label)
   OR toLower(coalesce(s.label, '')) CONTAINS toLower($label)
   OR toLower(s.title) CONTAINS toLower($label)
RETURN s.id AS id, s.ordinal AS ordinal, s.title AS title, s.label AS label, s.level AS level,
       s.text AS text,
       CASE WHEN toLower(coalesce(s.label, '')) = toLower($label)
              OR toLower(s.title) = toLower($label) THEN 0 ELSE 1 END AS fuzzy
ORDER BY fuzzy, s.ordinal
