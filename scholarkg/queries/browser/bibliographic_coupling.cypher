// Works that cite what a paper cites (bibliographic coupling), by references shared.
// Why: works citing the same literature are about the same problem; `scholarkg related`
// fuses this with co-citation, FastRP and text, and `suggest` reads it around the works
// its text search finds. Stubs (references no record of yours described) are flagged.
// :param paperId => 'doi:10.1000/example'
// :example paperId => COLLECT { MATCH (p:Paper)-[:CITES]->(:Paper) WHERE NOT p:Stub WITH p, count(*) AS n RETURN p.id ORDER BY n DESC, p.id LIMIT 1 }[0]
// :param limit => 25
MATCH (p:Paper {id: $paperId})-[:CITES]->(r:Paper)<-[:CITES]-(other:Paper)
WHERE other <> p
RETURN other.id AS id, other.title AS title, 'Stub' IN labels(other) AS stub,
       count(DISTINCT r) AS shared_references
ORDER BY shared_references DESC, id
LIMIT $limit
