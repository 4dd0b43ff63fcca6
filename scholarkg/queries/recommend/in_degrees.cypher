// Citations each of $ids receives from works not in $exclude (distinct citers).
UNWIND $ids AS x
MATCH (c:Paper {id: x})
OPTIONAL MATCH (q:Paper)-[:CITES]->(c)
WHERE NOT q.id IN $exclude
RETURN x AS id, count(DISTINCT q) AS n
