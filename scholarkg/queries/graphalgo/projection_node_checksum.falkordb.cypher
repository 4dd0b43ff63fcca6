// Count, sum of internal ids and of id lengths, and a non-linear mix of internal id and id
// length of the projected nodes, computed in the server: a cheap content check for a cached
// projection after the store's write fingerprint moved (a save or restart moves it without
// changing the graph). The id-length terms catch a deleted node whose internal id FalkorDB
// reused for a new one. FalkorDB only: Neo4j's fingerprint (last committed transaction)
// moves only on writes, so it needs no second check.
// identifiers: label=Paper
MATCH (n:{{label}})
WITH n, (id(n) * 1000003 + size(n.id)) % 2147483647 AS x
RETURN count(n) AS n, sum(id(n)) AS s, sum(size(n.id)) AS len, sum((x * x) % 2147483647) AS mix
