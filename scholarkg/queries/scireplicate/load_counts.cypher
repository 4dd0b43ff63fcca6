// What a SciReplicate-Bench load stored (scholarkg load scireplicate; tests).
MATCH (p:Paper)-[:HAS_TASK]->(:CodeTask) RETURN 'papers with tasks' AS what, count(DISTINCT p) AS n
UNION ALL
MATCH (t:CodeTask) RETURN 'tasks' AS what, count(t) AS n
UNION ALL
MATCH (t:CodeTask {entity_type: 'method'}) RETURN 'method tasks' AS what, count(t) AS n
UNION ALL
MATCH (:Implementation {kind: 'reference'})-[:HAS_STEP]->(s:ReasoningStep {recovered: false})
RETURN 'reference steps' AS what, count(s) AS n
UNION ALL
MATCH (i:Implementation {kind: 'reference'})-[:HAS_STEP]->(a:ReasoningStep)-[:DATA_FLOW]->(b:ReasoningStep)
RETURN 'reference data-flow edges' AS what, count(*) AS n
UNION ALL
MATCH (:CodeTask)-[d:DEPENDS_ON {scope: 'intra'}]->(:CodeEntity) RETURN 'depends_on intra' AS what, count(d) AS n
UNION ALL
MATCH (:CodeTask)-[d:DEPENDS_ON {scope: 'cross'}]->(:CodeEntity) RETURN 'depends_on cross' AS what, count(d) AS n
UNION ALL
MATCH (:CodeTask)-[c:CALLS_API]->(:ExternalAPI) RETURN 'calls_api' AS what, count(c) AS n
UNION ALL
MATCH (:CodeTask)-[r:TARGETS]->(:CodeEntity) RETURN 'targets' AS what, count(r) AS n
UNION ALL
MATCH (:Paper)-[:HAS_SECTION]->(s:Section) RETURN 'sections' AS what, count(s) AS n
UNION ALL
MATCH (:Paper)-[c:CITES]->(:Paper) WHERE c.bib_key IS NOT NULL RETURN 'cited papers' AS what, count(c) AS n
UNION ALL
MATCH (e:CodeEntity {kind: 'unresolved'}) RETURN 'unresolved entities' AS what, count(e) AS n
