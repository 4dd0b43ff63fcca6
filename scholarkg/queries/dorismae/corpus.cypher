// Every DORIS-MAE abstract (for --pool corpus), keyset-paged on the abstract id; its text
// as the dataset stated it (see pools.cypher).
// :param after => -1
// :param limit => 5000
MATCH (p:Paper)
WHERE p.doris_abstract_id > $after
RETURN p.id AS paper, p.doris_abstract_id AS abstract_id, p.title AS title,
       coalesce(p.doris_abstract, p.abstract) AS abstract
ORDER BY abstract_id
LIMIT $limit
