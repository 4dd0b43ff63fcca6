// Every query's candidate pool in pool order, with the abstracts' ids and text: the text
// the dataset stated (doris_abstract, schema/dorismae.py), the shared abstract only on a
// graph loaded before that copy was kept, so a later load of the work changes no score.
// :param source => 'dorismae'
MATCH (q:Query {source: $source})-[c:HAS_CANDIDATE]->(p:Paper)
RETURN q.qid AS qid, c.position AS position, p.id AS paper, p.doris_abstract_id AS abstract_id,
       p.title AS title, coalesce(p.doris_abstract, p.abstract) AS abstract
