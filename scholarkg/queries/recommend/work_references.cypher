// Each of $ids (Paper ids) with the distinct Paper ids it cites (the fit's relevant works);
// works citing nothing are not returned.
UNWIND $ids AS x
MATCH (p:Paper {id: x})-[:CITES]->(c:Paper)
RETURN x AS id, collect(DISTINCT c.id) AS refs
