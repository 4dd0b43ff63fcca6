// Re-key stored Papers in place ($rows [{old, new}]): a work whose record brings an id that
// ranks before its node's key (a reference's stub "openalex:W2" whose record has a DOI) keeps
// its node, edges and labels under the new key (loaders/identity.py; the new key is free).
UNWIND $rows AS row
MATCH (p:Paper {id: row.old})
SET p.id = row.new
