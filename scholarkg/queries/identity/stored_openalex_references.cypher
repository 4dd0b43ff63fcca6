// rows-in-one-record: id, stated, other
// falkordb-joined-rows: id str, stated strs, other strs
// The CITES edges out of the Papers in $ids as they are stored, per Paper: the ends of the
// edges OpenAlex states (`from_openalex` true) and of the others (loaders/identity.py reads
// them for the works whose OpenAlex record a chunk writes again). An edge OpenAlex already
// states is not written again (its MERGE … SET from_openalex = true would change nothing),
// and a work none of whose stated ends left its list needs no prune: in an update most
// reference lists are the ones stored. An end that is also in `other` (two CITES edges to
// one work, one of them not OpenAlex's) is written as before.
UNWIND $ids AS v
MATCH (:Paper {id: v})-[r:CITES]->(b:Paper)
WITH v, b.id AS e, coalesce(r.from_openalex = true, false) AS mark
RETURN v AS id, collect(CASE WHEN mark THEN e END) AS stated, collect(CASE WHEN mark THEN null ELSE e END) AS other
