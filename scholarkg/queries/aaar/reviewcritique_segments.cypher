// ReviewCritique gold: every review's segments in order with the deficient label.
MATCH (r:Review {source: $source})-[:REVIEWS]->(p:Paper)
MATCH (r)-[h:HAS_SEGMENT]->(s:ReviewSegment)
RETURN p.id AS paper, p.title AS title, r.id AS review_id, r.reviewer AS review,
       h.ordinal AS ordinal, s.text AS text, s.deficient AS deficient,
       s.explanation AS explanation
ORDER BY paper, review, ordinal
