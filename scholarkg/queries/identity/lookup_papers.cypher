// skip-empty-branches: a branch whose list is empty is left out before this runs (store/named.py)
// rows-in-one-record: key, id
// falkordb-joined-rows: key str, id str
// Every Paper any of the given identifiers names (identity resolution, loaders/identity.py),
// as rows {key, id}: the identifier as a scheme-prefixed key ("doi:10.1/x") and the Paper's id.
// Parameters: one list per id slot, the bare values of the keys of its scheme ($arxiv
// "2401.00001", $doi "10.1/x", $corpus [int], $openalex "W1", $mag "123", $pmid "123", $pmcid
// "PMC1", $s2paper "<sha>"); $ids the keys of any other scheme ("aaar:…", "s2:x" whose value is
// no integer, "s2:007" whose is not written as toString writes it: it is sought as an id, and
// by its slot through $corpus_slot, keyed "s2:7" as it always was); $aliases every key.
//
// A key names the Papers that hold its value in its slot, the Paper whose id it is, and the
// Paper a PaperAlias of that id points to (a second DOI, a merged-away or retired id, a
// displaced stub id). Each is one index seek, and every seek stays: whether two of them can land
// on two different nodes depends on every path that writes ids (renames, merges, retired ids,
// families keeping their ids, --bulk, an interrupted load's half-applied chunk), and when they
// do the resolver must see both to merge them. What is left out is the *row* a seek repeats:
// the Paper whose id is `scheme:v` is returned by the id branch only when it does not hold `v`
// in that slot (`NOT coalesce(p.slot = v, false)`: null or another value), because the slot
// branch returns the same (key, id) for it. So a reference "openalex:W5" to the stored Paper
// keyed "openalex:W5" costs one row, not two, and the set of (key, id) pairs is the one the
// three branches give. Two columns only: most keys of a chunk are its works' references, and a
// reference that lands on a stored Paper needs nothing more; the flags and id slots of the few
// Papers resolution reads come from identity/paper_slots (decisions.md, "One Paper per work").
// The branches keep the old order (ids, slots, aliases): a caller keeping one id per key
// (identity.retire_ids) keeps the last row's.
UNWIND $arxiv AS v MATCH (p:Paper {id: 'arxiv:' + v}) WHERE NOT coalesce(p.arxiv_id = v, false)
RETURN 'arxiv:' + v AS key, p.id AS id
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {id: 'doi:' + v}) WHERE NOT coalesce(p.doi = v, false)
RETURN 'doi:' + v AS key, p.id AS id
UNION ALL
UNWIND $corpus AS v MATCH (p:Paper {id: 's2:' + toString(v)}) WHERE NOT coalesce(p.corpus_id = v, false)
RETURN 's2:' + toString(v) AS key, p.id AS id
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {id: 'openalex:' + v}) WHERE NOT coalesce(p.openalex_id = v, false)
RETURN 'openalex:' + v AS key, p.id AS id
UNION ALL
UNWIND $mag AS v MATCH (p:Paper {id: 'mag:' + v}) WHERE NOT coalesce(p.mag_id = v, false)
RETURN 'mag:' + v AS key, p.id AS id
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {id: 'pmid:' + v}) WHERE NOT coalesce(p.pmid = v, false)
RETURN 'pmid:' + v AS key, p.id AS id
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {id: 'pmcid:' + v}) WHERE NOT coalesce(p.pmcid = v, false)
RETURN 'pmcid:' + v AS key, p.id AS id
UNION ALL
UNWIND $s2paper AS v MATCH (p:Paper {id: 's2paper:' + v}) WHERE NOT coalesce(p.s2_paper_id = v, false)
RETURN 's2paper:' + v AS key, p.id AS id
UNION ALL
UNWIND $ids AS v MATCH (p:Paper {id: v})
RETURN v AS key, p.id AS id
UNION ALL
UNWIND $arxiv AS v MATCH (p:Paper {arxiv_id: v})
RETURN 'arxiv:' + v AS key, p.id AS id
UNION ALL
UNWIND $doi AS v MATCH (p:Paper {doi: v})
RETURN 'doi:' + v AS key, p.id AS id
UNION ALL
UNWIND $corpus AS v MATCH (p:Paper {corpus_id: v})
RETURN 's2:' + toString(v) AS key, p.id AS id
UNION ALL
UNWIND $corpus_slot AS v MATCH (p:Paper {corpus_id: v})
RETURN 's2:' + toString(v) AS key, p.id AS id
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {openalex_id: v})
RETURN 'openalex:' + v AS key, p.id AS id
UNION ALL
UNWIND $mag AS v MATCH (p:Paper {mag_id: v})
RETURN 'mag:' + v AS key, p.id AS id
UNION ALL
UNWIND $pmid AS v MATCH (p:Paper {pmid: v})
RETURN 'pmid:' + v AS key, p.id AS id
UNION ALL
UNWIND $pmcid AS v MATCH (p:Paper {pmcid: v})
RETURN 'pmcid:' + v AS key, p.id AS id
UNION ALL
UNWIND $s2paper AS v MATCH (p:Paper {s2_paper_id: v})
RETURN 's2paper:' + v AS key, p.id AS id
UNION ALL
UNWIND $aliases AS v MATCH (:PaperAlias {id: v})-[:ALIAS_OF]->(p:Paper)
RETURN v AS key, p.id AS id
