// Every query's candidate pool in pool order, with the abstracts' ids and text.
// :param source => 'dorismae'
MATCH (q:Query {source: $source})-[c:HAS_CANDIDATE]->(p:Paper)
RETURN q.qid AS qid, c.position AS position, p.id AS paper, p.doris_abstract_id AS abstract_id,
       p.title AS title, p.abstract AS abstract
