// SearchLiterature, step 1: the cited paper by bibliography key or words of its title.
MATCH (p:Paper {id: $paper})-[c:CITES]->(q:Paper)
WHERE c.bib_key = $ref OR toLower(coalesce(q.title, '')) CONTAINS toLower($ref)
RETURN q.id AS id, q.title AS title, q.abstract AS abstract, q.arxiv_id AS arxiv_id,
       c.bib_key AS bib_key,
       CASE WHEN c.bib_key = $ref THEN 0 ELSE 1 END AS fuzzy
ORDER BY fuzzy, bib_key
