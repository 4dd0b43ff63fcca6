// How many Papers are stubs (:Paper:Stub: known only by an id, no record described them):
// what load openalex --only-stubs reports before and after filling them in.
MATCH (s:Stub)
RETURN count(s) AS stubs
