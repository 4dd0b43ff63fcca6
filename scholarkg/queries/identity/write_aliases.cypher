// Alias nodes and their ALIAS_OF edge, in one statement (loaders/identity.write_aliases, and
// the writer's ALIAS_OF batches): $rows [{id, of}], `id` an id of the node that none of its id
// slots holds (scheme-prefixed: "doi:10.1/b", "openalexauthor:A9"), `of` the node's id. The
// node is matched first, so no alias is made for a node that is not there, and an alias is
// never stored without its edge, however the load is interrupted (issue 37).
// Returns how many rows found their node.
// identifiers: label_alias=PaperAlias label=Paper
UNWIND $rows AS row
MATCH (n:{{label}} {id: row.of})
MERGE (a:{{label_alias}} {id: row.id})
MERGE (a)-[:ALIAS_OF]->(n)
RETURN count(a) AS written
