// $ids: Papers a source record describing the work was just written for: they are no longer
// stubs (loaders/writer.py, loaders/identity.merge_papers).
UNWIND $ids AS v
MATCH (p:Paper {id: v})
WHERE p:Stub
REMOVE p:Stub
RETURN count(p) AS unmarked
