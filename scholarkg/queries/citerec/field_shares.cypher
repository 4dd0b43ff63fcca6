// Papers per first field of study: the main / low-resource split (>= 3 % of papers).
MATCH (p:Paper)
WHERE p.fields_of_study IS NOT NULL AND size(p.fields_of_study) > 0
RETURN p.fields_of_study[0] AS field, count(p) AS n
ORDER BY n DESC, field
