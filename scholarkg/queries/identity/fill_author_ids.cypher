// Step 1 of keeping an Author's ids (loaders/author_identity.write_author_keys): $rows
// [{id, of, value}], `id` a scheme-prefixed id ("orcid:0000-…") of a record that landed on the
// Author `of`, `value` the bare id. An empty id slot takes it (the node keeps the ids it has:
// a second ORCID becomes an alias in step 2, identity/alias_author_ids).
// identifiers: prop=orcid
UNWIND $rows AS row
MATCH (n:Author {id: row.of})
WHERE n.{{prop}} IS NULL
SET n.{{prop}} = row.value
RETURN count(n) AS filled
