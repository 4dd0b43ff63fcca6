// AAAR-1.0 ExpDesign gold: each paper's experiments in order, with their explanations.
MATCH (p:Paper)-[h:HAS_EXPERIMENT]->(e:Experiment)
OPTIONAL MATCH (e)-[:EXPLAINED_BY]->(x:Explanation)
RETURN p.id AS paper, p.arxiv_id AS arxiv_id, h.ordinal AS ordinal, e.text AS experiment,
       x.text AS explanation
ORDER BY paper, ordinal
