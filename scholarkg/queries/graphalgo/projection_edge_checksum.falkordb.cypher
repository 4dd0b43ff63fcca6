// Count, endpoint-id sums and a non-linear mix of the endpoint pairs of the projected edges
// of one type, computed in the server without transferring edges (see
// projection_node_checksum). The mix squares each pair's code, so moving edges between
// endpoints (a->b, c->d  =>  a->d, c->b) changes it although the sums stay equal.
// identifiers: label=Paper rel_type=CITES
MATCH (a:{{label}})-[r:{{rel_type}}]->(b:{{label}})
WITH a, r, b, (id(a) * 1000003 + id(b)) % 2147483647 AS x
RETURN count(r) AS n, sum(id(a)) AS sa, sum(id(b)) AS sb, sum((x * x) % 2147483647) AS mix
