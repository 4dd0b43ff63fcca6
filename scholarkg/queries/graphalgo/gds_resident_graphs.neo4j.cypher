// scholarkg's resident GDS projections (graphalgo/projection.py) and the heap they hold,
// for `scholarkg graph projections` on Neo4j. Neo4j + GDS only.
CALL gds.graph.list()
YIELD graphName, nodeCount, relationshipCount, memoryUsage
WITH graphName, nodeCount, relationshipCount, memoryUsage
WHERE graphName STARTS WITH 'scholarkg_proj_'
RETURN graphName AS gds_graph, nodeCount AS nodes, relationshipCount AS edges,
       memoryUsage AS memory
ORDER BY gds_graph
