// AAAR-1.0 Weakness gold: papers with their reviewers' weakness lists in order
// (a reviewer with an empty list has one row with a null weakness).
MATCH (r:Review {source: $source})-[:REVIEWS]->(p:Paper)
OPTIONAL MATCH (r)-[h:HAS_WEAKNESS]->(w:Weakness)
RETURN p.id AS paper, p.title AS title, p.abstract AS abstract, p.url AS url,
       r.reviewer AS reviewer, h.ordinal AS ordinal, w.text AS weakness
ORDER BY paper, reviewer, ordinal
