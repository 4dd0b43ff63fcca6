// Sections of the given papers in order (kind: section | pre-experiment | body).
UNWIND $ids AS pid
MATCH (p:Paper {id: pid})-[h:HAS_SECTION]->(s:Section)
RETURN pid AS paper, h.ordinal AS ordinal, s.title AS heading, s.text AS text, s.kind AS kind
ORDER BY paper, ordinal
