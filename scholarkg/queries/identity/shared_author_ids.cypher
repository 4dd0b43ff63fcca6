// The Authors that share an ORCID or an S2 author id (two nodes of one person: two OpenAlex
// author ids with one ORCID), after a load that did not resolve authors by id (load openalex
// --bulk; loaders/author_identity.merge_shared_author_ids merges each group). Each row: the
// shared id as a key ("orcid:0000-…", "s2author:1") and the ids of the Authors holding it.
MATCH (a:Author) WHERE a.orcid IS NOT NULL
WITH a.orcid AS v, collect(a.id) AS ids
WHERE size(ids) > 1
RETURN 'orcid:' + v AS key, ids
UNION ALL
MATCH (a:Author) WHERE a.s2_author_id IS NOT NULL
WITH a.s2_author_id AS v, collect(a.id) AS ids
WHERE size(ids) > 1
RETURN 's2author:' + v AS key, ids
