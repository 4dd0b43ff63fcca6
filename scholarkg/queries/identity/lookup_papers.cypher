// Every Paper any of the given identifiers names (identity resolution, loaders/identity.py).
// One list per kind: $ids primary ids ("doi:10.1/x"), $arxiv "2401.00001", $doi "10.1/x",
// $corpus [int], $openalex "W1", $mag "123", $pmid "123", $pmcid "PMC1", $s2paper "<sha>".
// Each row: the identifier as a scheme-prefixed key, the Paper's id, whether a benchmark
// family keys it (family_key: never merged away) and whether it is a stub. The last branch
// finds a Paper by an id no slot holds, through its PaperAlias node (a second DOI, a
// merged-away id). Only these four columns: most keys of a chunk are its works' references,
// and a reference that lands on a stored Paper needs nothing more; the id slots of the few
// Papers a record describes come from identity/paper_slots (all 13 columns for every key
// were 53 % of an update's server time into a 200,000-work graph).
UNWIND $ids AS v MATCH (p:Paper {id: v})
RETURN v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $arxiv AS v MATCH (p:Paper {arxiv_id: v})
RETURN 'arxiv:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {doi: v})
RETURN 'doi:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $corpus AS v MATCH (p:Paper {corpus_id: v})
RETURN 's2:' + toString(v) AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {openalex_id: v})
RETURN 'openalex:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $mag AS v MATCH (p:Paper {mag_id: v})
RETURN 'mag:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {pmid: v})
RETURN 'pmid:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {pmcid: v})
RETURN 'pmcid:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $s2paper AS v MATCH (p:Paper {s2_paper_id: v})
RETURN 's2paper:' + v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
UNION ALL
UNWIND $ids AS v MATCH (:PaperAlias {id: v})-[:ALIAS_OF]->(p:Paper)
RETURN v AS key, p.id AS id, p.family_key AS family_key, p:Stub AS stub
