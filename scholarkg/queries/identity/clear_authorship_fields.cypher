// Remove from stored AUTHORED_BY edges what a work's own OpenAlex record no longer gives
// ($rows [{paper, author, props}], props a map of nulls: `SET r += {name: null}` removes the
// property): a newer record listing an author without institutions or a raw name leaves the
// edge as a fresh load of it would (Authorship.OWNED). Only rows whose edge holds a value
// are sent (the resolver compares with the author lists it read, identity/paper_authors).
UNWIND $rows AS row
MATCH (:Paper {id: row.paper})-[r:AUTHORED_BY]->(:Author {id: row.author})
SET r += row.props
