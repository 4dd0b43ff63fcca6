// Step 2 of keeping an Author's ids (after identity/fill_author_ids): $rows [{id, of, value}];
// an id whose slot on the Author `of` holds another value (an OpenAlex author id merged away
// or retired, a second ORCID) becomes an AuthorAlias with its ALIAS_OF edge, node and edge in
// one statement, so identity/lookup_authors finds the person by it and no alias is ever
// stored without its edge. Returns how many rows found their Author.
// identifiers: prop=openalex_id
UNWIND $rows AS row
MATCH (n:Author {id: row.of})
WHERE n.{{prop}} IS NULL OR n.{{prop}} <> row.value
MERGE (a:AuthorAlias {id: row.id})
MERGE (a)-[:ALIAS_OF]->(n)
RETURN count(a) AS written
