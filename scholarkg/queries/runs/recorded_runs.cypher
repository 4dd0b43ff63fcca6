// The runs recorded in this graph: each :Run's id and when it was created. A run's file is
// written after its nodes; 'scholarkg runs list' compares the two to find a run left
// half-recorded by an interrupted command.
MATCH (r:Run)
RETURN r.id AS id, r.created AS created
ORDER BY id
