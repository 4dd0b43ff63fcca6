// SearchCode: definitions of a class, function, method, global or attribute of the paper's
// repository by name ("fn", "Class.method" or a dotted namespace).
MATCH (p:Paper {id: $paper})-[:HAS_CODE]->(:Repository)-[:CONTAINS]->(f:CodeFile)-[:DEFINES]->(e:CodeEntity)
WHERE e.name = $name OR e.qualname = $name OR e.namespace = $name
RETURN e.id AS id, e.namespace AS namespace, e.qualname AS qualname, e.kind AS kind,
       f.path AS path, e.start_line AS start_line, e.end_line AS end_line,
       e.body_start AS body_start, e.signature AS signature, e.source AS source
ORDER BY path, start_line
