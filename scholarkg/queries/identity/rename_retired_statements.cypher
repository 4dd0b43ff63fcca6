// OpenAlex retired the records $rows [{old, new}] ("openalex:W1" into "openalex:W2") and the
// work holds a statement of the old one only: it is the new record's now (its values are
// what the old record stated until the new one is loaded), so the work's own record keeps a
// statement (loaders/identity.py, retire_ids). Returns the works.
UNWIND $rows AS row
MATCH (s:Statement {id: row.old})-[:STATES]->(p:Paper)
SET s.id = row.new
RETURN DISTINCT p.id AS id
