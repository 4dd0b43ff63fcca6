// Re-key Authors in place ($rows [{old, new, openalex}]): an Author keyed by an OpenAlex author
// id that OpenAlex retired (merged_ids/authors) takes the surviving id, its edges and aliases
// staying (loaders/author_identity.retire_authors; the new key is free).
UNWIND $rows AS row
MATCH (a:Author {id: row.old})
SET a.id = row.new, a.openalex_id = row.openalex
RETURN count(a) AS renamed
