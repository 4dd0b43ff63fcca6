// Paper ids for Semantic Scholar corpus ids (S2 citations and S2ORC name papers by corpus id).
UNWIND $corpus_ids AS cid
MATCH (p:Paper {corpus_id: cid})
RETURN cid AS corpus_id, p.id AS id
