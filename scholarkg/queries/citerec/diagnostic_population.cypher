// Every loaded single-citation sentence with what the diagnostic classes need: the cited
// paper's year, citation count and fields, and the intents of the citing -> cited edge.
MATCH (c:CitationContext)-[:IN_PAPER]->(p:Paper), (c)-[:GOLD]->(g:Paper)
WHERE c.n_refs = 1 AND c.diag_dataset IS NULL
OPTIONAL MATCH (p)-[e:CITES]->(g)
RETURN c.id AS id, c.text AS text, c.citation_text AS citation_text, c.section AS section,
       c.source AS source, p.id AS citing, g.id AS cited, g.year AS year,
       g.citation_count AS citation_count, g.fields_of_study AS fields, e.intents AS intents,
       e.contexts AS contexts, e.context_intents AS context_intents
ORDER BY id
