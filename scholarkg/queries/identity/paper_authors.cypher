// The author lists of the Papers in $ids (aligning a source that names authors only by name
// to the list a work already has, loaders/identity.py): per AUTHORED_BY edge the Paper, the
// Author's id and name, the position, and the edge's properties (an update leaves out the
// OpenAlex authorships a work already holds as stated: IdentityResolver._skip_stored_authorships).
UNWIND $ids AS v
MATCH (p:Paper {id: v})-[r:AUTHORED_BY]->(a:Author)
RETURN p.id AS paper, a.id AS id, a.name AS name, r.position AS position, properties(r) AS props
