// A native GDS projection for one `scholarkg graph embed` run (services/graph_embeddings.py):
// $label = 'Paper', $rels = {CITES: {type: 'CITES', orientation: 'UNDIRECTED'}} (whitelisted
// names, passed as values). Dropped after gds.fastRP.write. Neo4j + GDS only.
CALL gds.graph.project($graph, $label, $rels, {readConcurrency: $concurrency})
YIELD graphName, nodeCount, relationshipCount, projectMillis
RETURN graphName, nodeCount, relationshipCount, projectMillis
