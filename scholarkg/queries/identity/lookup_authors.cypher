// skip-empty-branches: a branch whose list is empty is left out before this runs (store/named.py)
// rows-in-one-record: key, id, alias
// falkordb-joined-rows: key str, id str, alias bool
// Every Author any of the given ids names (one node per person, loaders/author_identity.py):
// $orcid bare ORCID iDs, $openalex "A…", $s2 S2 author ids (the values of the keys of those
// schemes); $ids the keys of any other scheme; $aliases every key. Each row: the id as a key
// ("orcid:0000-…", "openalexauthor:A1", "s2author:1"), the Author's id, and whether the key
// named it through an AuthorAlias (an id merged away or retired by OpenAlex: never the key of
// a node again).
// A key is sought as a node id, in its slot and as an alias, every seek kept (two can land on
// two nodes, which the resolver merges); the node whose id is "openalexauthor:A1" is returned
// by the id branch only when its slot does not hold "A1" (null or another value), because the
// slot branch returns the same (key, id, false) for it: one row for the common record, the
// same set of rows as one id branch over every key gives.
UNWIND $orcid AS v MATCH (a:Author {id: 'orcid:' + v}) WHERE NOT coalesce(a.orcid = v, false)
RETURN 'orcid:' + v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $openalex AS v MATCH (a:Author {id: 'openalexauthor:' + v})
WHERE NOT coalesce(a.openalex_id = v, false)
RETURN 'openalexauthor:' + v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $s2 AS v MATCH (a:Author {id: 's2author:' + v}) WHERE NOT coalesce(a.s2_author_id = v, false)
RETURN 's2author:' + v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $ids AS v MATCH (a:Author {id: v})
RETURN v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $orcid AS v MATCH (a:Author {orcid: v})
RETURN 'orcid:' + v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $openalex AS v MATCH (a:Author {openalex_id: v})
RETURN 'openalexauthor:' + v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $s2 AS v MATCH (a:Author {s2_author_id: v})
RETURN 's2author:' + v AS key, a.id AS id, false AS alias
UNION ALL
UNWIND $aliases AS v MATCH (:AuthorAlias {id: v})-[:ALIAS_OF]->(a:Author)
RETURN v AS key, a.id AS id, true AS alias
