// Papers owning the given Chunk nodes (full-text candidate retrieval, RPG FT configurations).
UNWIND $ids AS cid
MATCH (p:Paper)-[:HAS_CHUNK]->(c:Chunk {id: cid})
RETURN DISTINCT p.id AS id
