// FastRP on a projected graph, written to the nodes by GDS (nothing crosses Bolt but this
// row). $config: embeddingDimension, iterationWeights, normalizationStrength,
// nodeSelfInfluence, propertyRatio, randomSeed, writeProperty, concurrency. Neo4j + GDS only.
CALL gds.fastRP.write($graph, $config)
YIELD nodeCount, nodePropertiesWritten, preProcessingMillis, computeMillis, writeMillis
RETURN nodeCount, nodePropertiesWritten, preProcessingMillis, computeMillis, writeMillis
