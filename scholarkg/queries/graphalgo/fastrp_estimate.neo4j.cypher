// GDS's memory estimate for projecting the graph and running FastRP on it, before anything is
// projected. $projection = {nodeProjection: 'Paper', relationshipProjection: {...}}.
CALL gds.fastRP.write.estimate($projection, $config)
YIELD nodeCount, relationshipCount, requiredMemory, bytesMin, bytesMax, heapPercentageMin,
      heapPercentageMax
RETURN nodeCount, relationshipCount, requiredMemory, bytesMin, bytesMax, heapPercentageMin,
       heapPercentageMax
