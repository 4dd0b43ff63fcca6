// One window of the works a text ranker searches, by FalkorDB's internal node id
// ($lo <= id < $hi: a node-id seek, where paging by p.id sorts the whole label per page):
// Papers with a title or an abstract. FalkorDB only (Neo4j pages by p.id on its index).
MATCH (p:Paper)
WHERE id(p) >= $lo AND id(p) < $hi AND (p.title IS NOT NULL OR p.abstract IS NOT NULL)
RETURN p.id AS id, p.title AS title, p.abstract AS abstract
