// $ids: Papers that no source record describes (the bulk paths write them with the others,
// then mark them here; loaders/openalex_bulk.py).
UNWIND $ids AS v
MATCH (p:Paper {id: v})
SET p:Stub
RETURN count(p) AS marked
