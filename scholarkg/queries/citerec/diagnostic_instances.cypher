// The examples of one citeBench-style diagnostic dataset, with their class labels.
MATCH (d:DiagnosticDataset {id: $dataset})<-[:IN_DATASET]-(c:CitationContext)
MATCH (c)-[:IN_PAPER]->(p:Paper), (c)-[:GOLD]->(g:Paper)
RETURN c.id AS id, c.text AS text, c.diag_dataset AS diag_dataset, c.diag_class AS class,
       c.section AS section, p.id AS citing, p.year AS year, g.id AS gold
ORDER BY id
