// Dates of candidate papers (RPG rankers use them as a prior / tie-breaker).
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})
RETURN p.id AS id, p.date AS date, p.year AS year, p.arxiv_id AS arxiv_id
