// Paper title + abstract in id order, one page at a time (BM25 index for hybrid retrieval).
MATCH (p:Paper) WHERE p.id > $after
RETURN p.id AS id, p.title AS title, p.abstract AS abstract
ORDER BY p.id LIMIT $limit
