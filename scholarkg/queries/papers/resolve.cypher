// skip-empty-branches: a branch whose list is empty is left out before this runs (store/named.py)
// Every Paper a user's reference may name (services/paper_lookup.py): one list per kind of id.
// $ids: node ids and scheme-prefixed aliases ("doi:10.1/x"); $doi "10.1/x"; $arxiv "2401.00001";
// $corpus [int]; $openalex "W1"; $mag "123"; $pmid "123"; $pmcid "PMC1"; $s2paper "<sha>".
// Each row: the key it matched (scheme-prefixed), how, and the Paper's id, title, year, stub flag.
UNWIND $ids AS v MATCH (p:Paper {id: v})
RETURN v AS key, 'id' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $ids AS v MATCH (:PaperAlias {id: v})-[:ALIAS_OF]->(p:Paper)
RETURN v AS key, 'alias' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {doi: v})
RETURN 'doi:' + v AS key, 'doi' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $arxiv AS v MATCH (p:Paper {arxiv_id: v})
RETURN 'arxiv:' + v AS key, 'arxiv' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $corpus AS v MATCH (p:Paper {corpus_id: v})
RETURN 's2:' + toString(v) AS key, 's2' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {openalex_id: v})
RETURN 'openalex:' + v AS key, 'openalex' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $mag AS v MATCH (p:Paper {mag_id: v})
RETURN 'mag:' + v AS key, 'mag' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {pmid: v})
RETURN 'pmid:' + v AS key, 'pmid' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {pmcid: v})
RETURN 'pmcid:' + v AS key, 'pmcid' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
UNION ALL
UNWIND $s2paper AS v MATCH (p:Paper {s2_paper_id: v})
RETURN 's2paper:' + v AS key, 's2paper' AS by, p.id AS id, p.title AS title, p.year AS year, 'Stub' IN labels(p) AS stub
