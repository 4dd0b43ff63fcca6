// Store one algorithm score per node (e.g. `scholarkg graph pagerank --write pagerank`), so
// later Cypher can sort and filter by it. $rows = [{id, score}]; unknown ids are skipped.
// identifiers: label=Paper prop=pagerank
UNWIND $rows AS row
MATCH (n:{{label}} {id: row.id})
SET n.{{prop}} = row.score
RETURN count(n) AS written
