// Personalized PageRank from the seeds over the references, in the server, as if the works
// $exclude and their relationships were absent (the managed server's procedure,
// neo4j-launcher/.../procedures/PersonalizedPageRank.java: a forward push touching only the
// walk's neighbourhood). $seeds: Paper ids (bias 1 each), $exclude: Paper ids, $limit: rows
// back (the seeds are never answers), $damping_factor, $max_iterations, $tolerance (GDS's
// names and meaning). Score desc, then id.
CALL scholarkg.recommend.ppr($seeds, $exclude, $limit, $damping_factor, $max_iterations,
                             $tolerance)
YIELD id, score
RETURN id, score
