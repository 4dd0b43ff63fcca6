// Re-key stored Papers in place and keep each old key that no id slot of its node holds, in
// one statement ($rows [{old, new, alt_ids, aliases}]): the node takes its new key, its
// alternative ids ($alt_ids, read before, the old key among them; null leaves them) and a
// PaperAlias with its ALIAS_OF edge for each of $aliases (loaders/identity.py). One statement,
// so a load stopped anywhere leaves either the old key or the new key with the alias: as
// three statements, a load killed after the rename left the old key leading nowhere, and a
// --resume, finding the node by its new key, renamed nothing and never wrote the alias.
UNWIND $rows AS row
MATCH (p:Paper {id: row.old})
SET p.id = row.new, p.alt_ids = coalesce(row.alt_ids, p.alt_ids)
WITH p, row
UNWIND row.aliases AS alias
MERGE (a:PaperAlias {id: alias})
MERGE (a)-[:ALIAS_OF]->(p)
