// Papers several benchmark families reach, one node each: LEGOBench leaderboards, DORIS-MAE
// candidate pools, citation contexts citing it, AAAR ExpDesign experiments, SciReplicate tasks.
// Why: the id rules (arxiv:<id> > doi > s2 > ...) merge a paper from every corpus into one
// node; `scholarkg demo` loads every family's synthetic corpus into one graph to show it.
// :param minFamilies => 2
MATCH (p:Paper)
WITH p,
     [(p)-[:HAS_RESULT]->(:Result)-[:IN_LEADERBOARD]->(lb:Leaderboard) | lb.id] AS boards,
     [(q:Query)-[:HAS_CANDIDATE]->(p) | q.id] AS doris_queries,
     [(c:CitationContext)-[:GOLD]->(p) | c.id] AS contexts,
     [(p)-[:HAS_EXPERIMENT]->(e:Experiment) | e.id] AS experiments,
     [(p)-[:HAS_TASK]->(t:CodeTask) | t.id] AS code_tasks
WITH p, boards, doris_queries, contexts, experiments, code_tasks,
     CASE WHEN size(boards) > 0 THEN 1 ELSE 0 END
     + CASE WHEN size(doris_queries) > 0 THEN 1 ELSE 0 END
     + CASE WHEN size(contexts) > 0 THEN 1 ELSE 0 END
     + CASE WHEN size(experiments) > 0 THEN 1 ELSE 0 END
     + CASE WHEN size(code_tasks) > 0 THEN 1 ELSE 0 END AS families
WHERE families >= $minFamilies
RETURN p.id AS paper, families, size(boards) AS leaderboards,
       size(doris_queries) AS doris_queries, size(contexts) AS citation_contexts,
       size(experiments) AS aaar_experiments, size(code_tasks) AS scirep_tasks,
       boards[0] AS a_leaderboard, doris_queries[0] AS a_doris_query, contexts[0] AS a_context
ORDER BY families DESC, citation_contexts DESC, paper
LIMIT 25
