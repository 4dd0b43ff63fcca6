// Kept current per record, step 0 (before prune_also_references): $works [{id, rec, old, sole,
// refs}]. Graphs loaded before round 6 keyed a record's statements by its parsed Paper id
// (old, "openalex:doi:10.1/x"), which two records of one source sharing a DOI both had; rec
// is the record's own key ("openalex:W5"). On the record's next load old becomes rec on the
// CITES edges it lists, and also on the others when the record is the only one of its
// source beside the work's own (sole): steps 1 and 2 then treat them as rec's. Where
// another record of the source may have stated an edge, old stays on it.
UNWIND $works AS w
MATCH (a:Paper {id: w.id})-[r:CITES]->(b:Paper)
WHERE w.old IN r.also AND (w.sole OR b.id IN w.refs)
WITH r, w, [x IN r.also WHERE x <> w.old AND x <> w.rec] AS rest
SET r.also = [x IN rest WHERE x < w.rec] + [w.rec] + [x IN rest WHERE x > w.rec]
RETURN count(r) AS migrated
