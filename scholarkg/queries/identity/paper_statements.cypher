// The Papers in $ids with their properties and the Statements (one per source record) that
// state them: what a chunk's records of a work several records describe are ranked against
// (loaders/identity.py). A Paper one record described has no Statement: its own values are
// that record's.
MATCH (p:Paper) WHERE p.id IN $ids
OPTIONAL MATCH (s:Statement)-[:STATES]->(p)
WITH p, collect(s) AS stated
RETURN p.id AS id, properties(p) AS props, [s IN stated | properties(s)] AS statements
