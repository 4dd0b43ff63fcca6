// Every Author any of the given ids names (one node per person, loaders/author_identity.py):
// $ids node ids ("openalexauthor:A1", "orcid:…"), $orcid bare ORCID iDs, $openalex "A…", $s2
// S2 author ids. Each row: the id as a key ("orcid:0000-…", "openalexauthor:A1", "s2author:1"),
// the Author's id, and whether the key named it through an AuthorAlias (an id merged away or
// retired by OpenAlex: never the key of a node again).
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
UNWIND $ids AS v MATCH (:AuthorAlias {id: v})-[:ALIAS_OF]->(a:Author)
RETURN v AS key, a.id AS id, true AS alias
