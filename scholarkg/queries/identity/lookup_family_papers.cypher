// skip-empty-branches: a branch whose list is empty is left out before this runs (store/named.py)
// Identity resolution for a benchmark family's records (loaders/identity.py, family mode):
// the Papers *other than the record's own node* that share one of its id slots. Per slot a
// list of {v: the slot value, own: the record's Paper id}: $arxiv, $doi, $corpus (v an int),
// $openalex, $mag, $pmid, $pmcid, $s2paper, and $alias (every scheme-prefixed id of the record,
// matched against PaperAlias nodes: ids no slot holds). The record's own node is left out on the server,
// so reloading a family's files (every record finds its own node) returns almost nothing.
UNWIND $arxiv AS r MATCH (p:Paper {arxiv_id: r.v}) WHERE p.id <> r.own
RETURN 'arxiv:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $doi AS r MATCH (p:Paper {doi: r.v}) WHERE p.id <> r.own
RETURN 'doi:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $corpus AS r MATCH (p:Paper {corpus_id: r.v}) WHERE p.id <> r.own
RETURN 's2:' + toString(r.v) AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $openalex AS r MATCH (p:Paper {openalex_id: r.v}) WHERE p.id <> r.own
RETURN 'openalex:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $mag AS r MATCH (p:Paper {mag_id: r.v}) WHERE p.id <> r.own
RETURN 'mag:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $pmid AS r MATCH (p:Paper {pmid: r.v}) WHERE p.id <> r.own
RETURN 'pmid:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $pmcid AS r MATCH (p:Paper {pmcid: r.v}) WHERE p.id <> r.own
RETURN 'pmcid:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $s2paper AS r MATCH (p:Paper {s2_paper_id: r.v}) WHERE p.id <> r.own
RETURN 's2paper:' + r.v AS key, p.id AS id, p.family_key AS family_key
UNION ALL
UNWIND $alias AS r MATCH (:PaperAlias {id: r.v})-[:ALIAS_OF]->(p:Paper) WHERE p.id <> r.own
RETURN r.v AS key, p.id AS id, p.family_key AS family_key
