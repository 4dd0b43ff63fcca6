// Count, endpoint-id sums and an order-sensitive mix of the projected edges of one type,
// computed in the server without transferring edges (see projection_node_checksum).
// identifiers: label=Paper rel_type=CITES
MATCH (a:{{label}})-[r:{{rel_type}}]->(b:{{label}})
WITH a, r, b
RETURN count(r) AS n, sum(id(a)) AS sa, sum(id(b)) AS sb,
       sum((id(a) * 7919 + id(b) * 104729) % 1000003) AS mix
