// Remove the examples of one diagnostic dataset before it is rebuilt (the loaded contexts
// they were sampled from stay).
MATCH (c:CitationContext)-[:IN_DATASET]->(d:DiagnosticDataset {id: $dataset})
DETACH DELETE c
