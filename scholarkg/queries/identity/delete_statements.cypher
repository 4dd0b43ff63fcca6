// Delete the Statements $ids: the one a work keeps when its other records went (a record
// OpenAlex retired): a work one record describes holds that record's values itself
// (loaders/identity.py).
UNWIND $ids AS id
MATCH (s:Statement {id: id})
DETACH DELETE s
