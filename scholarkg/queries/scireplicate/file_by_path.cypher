// SearchFile: a file of the paper's repository whose path ends with $path (shortest first).
MATCH (p:Paper {id: $paper})-[:HAS_CODE]->(:Repository)-[:CONTAINS]->(f:CodeFile)
WHERE f.path = $path OR f.path ENDS WITH $suffix
RETURN f.path AS path, f.module AS module, f.content AS content, f.parse_error AS parse_error
ORDER BY size(f.path), f.path
