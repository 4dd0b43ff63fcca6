// How many Papers the graph holds: what `load openalex` chooses its chunk by when no
// --batch-size is given (loaders/chunk_size.py). A count of one label's nodes is read from
// the label's own count on both backends (FalkorDB's label matrix, Neo4j's count store),
// not by visiting the nodes.
MATCH (p:Paper)
RETURN count(p) AS n
