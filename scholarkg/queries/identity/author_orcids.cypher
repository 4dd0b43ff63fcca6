// The ORCID iD each Author in $ids holds (null: none), read before an Author record named by
// an iD the graph does not know is aligned by name to one of them
// (loaders/author_identity.AuthorResolver._by_name): a person listed with another iD is not
// the record's person.
UNWIND $ids AS v
MATCH (a:Author {id: v})
RETURN a.id AS id, a.orcid AS orcid
