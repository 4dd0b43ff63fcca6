// One page of papers with the fields text rankers and priors read, in id order.
MATCH (p:Paper)
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, p.year AS year
ORDER BY id
SKIP $skip LIMIT $limit
