// Every Author any of the given ids names (one node per person, loaders/identity.py): $ids
// node ids ("openalexauthor:A1", "orcid:…"), $orcid bare ORCID iDs, $openalex "A…", $s2 S2
// author ids. Each row: the id as a key ("orcid:0000-…", "openalexauthor:A1", "s2author:1")
// and the Author's id.
UNWIND $ids AS v MATCH (a:Author {id: v})
RETURN v AS key, a.id AS id
UNION ALL
UNWIND $orcid AS v MATCH (a:Author {orcid: v})
RETURN 'orcid:' + v AS key, a.id AS id
UNION ALL
UNWIND $openalex AS v MATCH (a:Author {openalex_id: v})
RETURN 'openalexauthor:' + v AS key, a.id AS id
UNION ALL
UNWIND $s2 AS v MATCH (a:Author {s2_author_id: v})
RETURN 's2author:' + v AS key, a.id AS id
