// Step 2 of moving a work's authorship (after copy_authorships): the edge to the name-only
// Author goes, once the person's node has its copy.
UNWIND $rows AS row
MATCH (p:Paper {id: row.paper})-[r:AUTHORED_BY]->(:Author {id: row.old})
MATCH (p)-[:AUTHORED_BY]->(:Author {id: row.new})
DELETE r
RETURN count(*) AS dropped
