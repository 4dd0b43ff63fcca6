// skip-empty-branches: a branch whose list is empty is left out before this runs (store/named.py)
// The stub Papers (:Paper:Stub, known only by an id: a reference no record described) that any
// of the given ids names (load openalex --only-stubs, loaders/stubs.py): $ids scheme-prefixed ids
// ("openalex:W2", "doi:10.1/x"), matched against Paper ids and PaperAlias nodes, and one list
// per id slot ($openalex_id "W2", $doi "10.1/x", $corpus_id [int], ...). Each row: the id as a
// scheme-prefixed key and the stub's id. Described Papers are left out on the server, so a
// snapshot whose works are mostly in the graph already answers with few rows. The alias
// branch tests the label after a WITH: `WHERE p:Stub` on the pattern made FalkorDB plan it
// from a scan of every Paper (35 s for 2,000 records over a graph of 5,000 works; 0.04 s so).
UNWIND $ids AS v MATCH (p:Paper {id: v}) WHERE p:Stub
RETURN v AS key, p.id AS id
UNION ALL
UNWIND $arxiv_id AS v MATCH (p:Paper {arxiv_id: v}) WHERE p:Stub
RETURN 'arxiv:' + v AS key, p.id AS id
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {doi: v}) WHERE p:Stub
RETURN 'doi:' + v AS key, p.id AS id
UNION ALL
UNWIND $corpus_id AS v MATCH (p:Paper {corpus_id: v}) WHERE p:Stub
RETURN 's2:' + toString(v) AS key, p.id AS id
UNION ALL
UNWIND $openalex_id AS v MATCH (p:Paper {openalex_id: v}) WHERE p:Stub
RETURN 'openalex:' + v AS key, p.id AS id
UNION ALL
UNWIND $mag_id AS v MATCH (p:Paper {mag_id: v}) WHERE p:Stub
RETURN 'mag:' + v AS key, p.id AS id
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {pmid: v}) WHERE p:Stub
RETURN 'pmid:' + v AS key, p.id AS id
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {pmcid: v}) WHERE p:Stub
RETURN 'pmcid:' + v AS key, p.id AS id
UNION ALL
UNWIND $s2_paper_id AS v MATCH (p:Paper {s2_paper_id: v}) WHERE p:Stub
RETURN 's2paper:' + v AS key, p.id AS id
UNION ALL
UNWIND $ids AS v MATCH (:PaperAlias {id: v})-[:ALIAS_OF]->(p:Paper)
WITH v, p WHERE p:Stub
RETURN v AS key, p.id AS id
