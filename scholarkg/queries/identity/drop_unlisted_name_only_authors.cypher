// Name-only Authors (ids `author:…`, ids.author_id) that no work lists any more: a reload
// dropped their last authorship (a record now spelling the name differently, or one loaded
// before such ids were scoped by their work). Run once at the end of a load that dropped
// authorships (IdentityResolver.finish); an Author with an id is never deleted here.
MATCH (a:Author)
WHERE a.id STARTS WITH 'author:' AND NOT (a)--()
DELETE a
RETURN count(*) AS deleted
