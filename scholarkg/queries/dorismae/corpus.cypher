// Every DORIS-MAE abstract (for --pool corpus), keyset-paged on the abstract id.
// :param after => -1
// :param limit => 5000
MATCH (p:Paper)
WHERE p.doris_abstract_id > $after
RETURN p.id AS paper, p.doris_abstract_id AS abstract_id, p.title AS title,
       p.abstract AS abstract
ORDER BY abstract_id
LIMIT $limit
