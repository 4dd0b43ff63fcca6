// What each source said about one paper: its records' statements beside the values it holds.
// Why: where arXiv, Crossref, OpenAlex, S2 or a .bib disagree, see which record gave the title, date or count the paper shows, and what the others stated.
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (p:Paper)<-[:STATES]-(:Statement) RETURN p.id ORDER BY p.id LIMIT 1 }[0]
MATCH (p:Paper {id: $paperId})<-[:STATES]-(s:Statement)
RETURN s.id AS record, s.source AS source, s.title AS title, s.date AS date, s.year AS year,
       s.venue AS venue, s.citation_count AS citation_count, left(s.abstract, 80) AS abstract,
       p.title AS paper_title, p.source AS best_source, p.named_by AS named_by
ORDER BY record
