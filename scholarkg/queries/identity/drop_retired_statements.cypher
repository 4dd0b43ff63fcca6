// OpenAlex retired the records $rows [{old, new}] ("openalex:W1" into "openalex:W2") and the
// work holds a statement of both: the retired record's goes (its record is no more), so the
// work's values are restated without it (loaders/identity.py, retire_ids). Returns the works.
UNWIND $rows AS row
MATCH (s:Statement {id: row.old})-[:STATES]->(p:Paper)<-[:STATES]-(:Statement {id: row.new})
DETACH DELETE s
RETURN DISTINCT p.id AS id
