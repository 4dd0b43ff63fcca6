// Drop the projection of one embedding run (no error when it is already gone).
CALL gds.graph.drop($graph, false) YIELD graphName
RETURN graphName
