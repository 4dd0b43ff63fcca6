// SciReplicate-Bench instances: every CodeTask with its target file's text (ori_python_file).
MATCH (p:Paper)-[:HAS_TASK]->(t:CodeTask)
WHERE t.source = 'scireplicate'
OPTIONAL MATCH (p)-[:HAS_CODE]->(:Repository)-[:CONTAINS]->(f:CodeFile)
WHERE f.path = t.file_path
RETURN properties(t) AS task, f.content AS file
ORDER BY t.paper_index, t.task_index
