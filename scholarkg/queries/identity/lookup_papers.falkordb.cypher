// skip-empty-branches: a branch whose list is empty is left out before this runs (store/named.py)
// falkordb-joined-rows: key str, id str, node str
// identity/lookup_papers.cypher on FalkorDB: the same branches, the same rows (what each
// branch seeks and why is said there), each with the Paper's internal node id as well
// (`node`, as text: a joined read's columns are strings). The resolver hands it to the
// writer with the references that land on that Paper, whose CITES statement then takes the
// end by its node and checks the id it should carry, instead of seeking it in the id index
// (loaders/identity.py, IdentityResolver._nodes; store/falkordb/dialect.py,
// create_grouped_by_node_query). Neo4j's look-up reads no node: its CITES seek every end.
UNWIND $arxiv AS v MATCH (p:Paper {id: 'arxiv:' + v}) WHERE NOT coalesce(p.arxiv_id = v, false)
RETURN 'arxiv:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {id: 'doi:' + v}) WHERE NOT coalesce(p.doi = v, false)
RETURN 'doi:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $corpus AS v MATCH (p:Paper {id: 's2:' + toString(v)}) WHERE NOT coalesce(p.corpus_id = v, false)
RETURN 's2:' + toString(v) AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {id: 'openalex:' + v}) WHERE NOT coalesce(p.openalex_id = v, false)
RETURN 'openalex:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $mag AS v MATCH (p:Paper {id: 'mag:' + v}) WHERE NOT coalesce(p.mag_id = v, false)
RETURN 'mag:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {id: 'pmid:' + v}) WHERE NOT coalesce(p.pmid = v, false)
RETURN 'pmid:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {id: 'pmcid:' + v}) WHERE NOT coalesce(p.pmcid = v, false)
RETURN 'pmcid:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $s2paper AS v MATCH (p:Paper {id: 's2paper:' + v}) WHERE NOT coalesce(p.s2_paper_id = v, false)
RETURN 's2paper:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $ids AS v MATCH (p:Paper {id: v})
RETURN v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $arxiv AS v MATCH (p:Paper {arxiv_id: v})
RETURN 'arxiv:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {doi: v})
RETURN 'doi:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $corpus AS v MATCH (p:Paper {corpus_id: v})
RETURN 's2:' + toString(v) AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $corpus_slot AS v MATCH (p:Paper {corpus_id: v})
RETURN 's2:' + toString(v) AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {openalex_id: v})
RETURN 'openalex:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $mag AS v MATCH (p:Paper {mag_id: v})
RETURN 'mag:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {pmid: v})
RETURN 'pmid:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {pmcid: v})
RETURN 'pmcid:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $s2paper AS v MATCH (p:Paper {s2_paper_id: v})
RETURN 's2paper:' + v AS key, p.id AS id, toString(id(p)) AS node
UNION ALL
UNWIND $aliases AS v MATCH (:PaperAlias {id: v})-[:ALIAS_OF]->(p:Paper)
RETURN v AS key, p.id AS id, toString(id(p)) AS node
