// What the recommender's caches and fit depend on, in aggregates the server computes: the
// Papers (count, id lengths, stubs, text lengths) and the CITES among them (count, endpoint id
// lengths). recommend/state.py hashes the row into the graph version; other writes (runs,
// reviews, leaderboards) leave it unchanged.
MATCH (p:Paper)
WITH count(p) AS papers, sum(size(p.id)) AS id_chars,
     sum(CASE WHEN 'Stub' IN labels(p) THEN 1 ELSE 0 END) AS stubs,
     sum(size(coalesce(p.title, ''))) AS title_chars,
     sum(size(coalesce(p.abstract, ''))) AS abstract_chars
OPTIONAL MATCH (a:Paper)-[:CITES]->(b:Paper)
RETURN papers, id_chars, stubs, title_chars, abstract_chars, count(b) AS cites,
       sum(size(a.id) * 7 + size(b.id)) AS cite_chars
