// Remove one run from the graph: its :Run node, its :MetricResult nodes and every
// relationship they have (SCORED, ANSWERED). Used when recording the run did not finish.
MATCH (r:Run {id: $id})
OPTIONAL MATCH (r)-[:SCORED]->(m:MetricResult)
DETACH DELETE r, m
RETURN count(DISTINCT r) AS removed
