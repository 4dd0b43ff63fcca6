// DORIS-MAE query-level relevance in one aggregation (``Real-Doris-Mae/Doris-Mae-Dataset:benchmarking/dataset_util.py``):
// units = the DISTINCT aspects and sub-aspects of a query (identical strings share a node),
// raw S(p|Q) = the sum of every judgement of (unit, p) from $judge (missing pair = 0,
// duplicates summed, -1 summed as -1). Relevant iff raw / n_units >= 1 (done in Python).
// :param source => 'dorismae'
// :param judge => 'gpt'
MATCH (q:Query {source: $source})-[:HAS_ASPECT|HAS_SUB_ASPECT]->(u:Aspect)
WITH q, collect(DISTINCT u) AS units
MATCH (q)-[c:HAS_CANDIDATE]->(p:Paper)
UNWIND units AS u
OPTIONAL MATCH (u)-[j:JUDGED {source: $judge}]->(p)
WITH q, p, c.position AS position, size(units) AS n_units, sum(coalesce(j.score, 0.0)) AS raw
RETURN q.qid AS qid, p.doris_abstract_id AS abstract_id, position, n_units, raw
