// The AUTHORED_BY edges the Author $survivor holds from the works the Author $loser is also
// listed on (merging two Author nodes of one person, loaders/author_identity.merge_authors):
// per work, the survivor's edge properties, which win over the loser's.
MATCH (p:Paper)-[:AUTHORED_BY]->(:Author {id: $loser})
MATCH (p)-[s:AUTHORED_BY]->(:Author {id: $survivor})
RETURN p.id AS paper, properties(s) AS props
