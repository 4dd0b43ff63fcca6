// Name-only Authors in $ids left with no relationship after their authorships moved to the
// person's node (loaders/author_identity.move_authorships).
UNWIND $ids AS v
MATCH (a:Author {id: v})
OPTIONAL MATCH (a)-[x]-()
WITH a, count(x) AS edges
WHERE edges = 0
DELETE a
RETURN count(*) AS deleted
