// One page of the works a text ranker searches: Papers with a title or an abstract, in id
// order after $after (keyset pagination), with their stub flag.
MATCH (p:Paper)
WHERE p.id > $after AND (p.title IS NOT NULL OR p.abstract IS NOT NULL)
RETURN p.id AS id, p.title AS title, p.abstract AS abstract, 'Stub' IN labels(p) AS stub
ORDER BY id
LIMIT $limit
