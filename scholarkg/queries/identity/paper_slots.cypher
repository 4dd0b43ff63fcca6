// The id slots, alternative ids, naming source and statements, the OpenAlex record's updated_date, the .bib citation keys and flags (family_key: a benchmark family keys it,
// never merged away; stub: no record described it) of the Papers in $ids (identity resolution:
// the stored Papers a chunk's records describe or merge, loaders/identity.py; the look-up,
// identity/lookup_papers, answers with key and id only).
UNWIND $ids AS v MATCH (p:Paper {id: v})
RETURN p.id AS id, p.source AS source, p.named_by AS named_by, p.stated_by AS stated_by, p.arxiv_id AS arxiv_id, p.doi AS doi, p.corpus_id AS corpus_id, p.openalex_id AS openalex_id, p.mag_id AS mag_id, p.pmid AS pmid, p.pmcid AS pmcid, p.s2_paper_id AS s2_paper_id, p.alt_ids AS alt_ids, p.family_key AS family_key, p.openalex_updated AS openalex_updated, p.bib_keys AS bib_keys, p:Stub AS stub
