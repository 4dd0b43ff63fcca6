// The stored works a title and a year name (identity resolution, IdentityResolver._title_matches
// in loaders/identity.py): per row {key, title, year, any} of $rows, the described Papers whose
// normalised title (title_norm, indexed) and year are the row's, other than the row's own key;
// with any = false only those known by title and year alone (a "paper:" id, not a benchmark
// family's node), which a catalogue record with ids may join. Rows {key, id}.
UNWIND $rows AS r
MATCH (p:Paper {title_norm: r.title})
WHERE p.year = r.year AND p.id <> r.key AND NOT p:Stub
  AND (r.any OR (p.id STARTS WITH 'paper:' AND p.family_key IS NULL))
RETURN r.key AS key, p.id AS id
