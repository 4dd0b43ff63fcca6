// The shortest chain of "compares with" links from one paper to another.
// Why: leaderboards are built from papers reporting results against earlier baselines;
// a chain shows how two methods are connected through intermediate comparisons.
// (GQL shortest-path syntax, Neo4j >= 5.21; one connected pattern, no cartesian product.)
// :param fromId => 'p1'
// :example fromId => COLLECT { MATCH (a:Paper)-[:COMPARES_WITH]->(:Paper) RETURN a.id ORDER BY a.id LIMIT 1 }[0]
// :param toId => 'p2'
// :example toId => COLLECT { MATCH (a:Paper)-[:COMPARES_WITH]->(b:Paper) RETURN b.id ORDER BY a.id, b.id LIMIT 1 }[0]
MATCH path = SHORTEST 1 (a:Paper {id: $fromId})-[:COMPARES_WITH]->{1,8}(b:Paper {id: $toId})
RETURN path
