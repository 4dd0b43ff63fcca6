// Count and sum of internal ids of the projected nodes, computed in the server: a cheap
// content check for a cached projection after the store's write fingerprint moved (a save
// or restart moves it without changing the graph). FalkorDB only: Neo4j's fingerprint
// (last committed transaction) moves only on writes, so it needs no second check.
// identifiers: label=Paper
MATCH (n:{{label}})
RETURN count(n) AS n, sum(id(n)) AS s
