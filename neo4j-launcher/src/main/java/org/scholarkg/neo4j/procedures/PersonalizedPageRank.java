package org.scholarkg.neo4j.procedures;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.stream.Stream;

import org.neo4j.graphdb.Direction;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Name;
import org.neo4j.procedure.Procedure;
import org.neo4j.procedure.TerminationGuard;

/**
 * {@code CALL scholarkg.recommend.ppr(seeds, exclude, limit, dampingFactor, maxIterations,
 * tolerance)}: personalized PageRank from some {@code :Paper} works over their references
 * ({@code CITES}, natural orientation), as if the works {@code exclude} and every
 * relationship touching them were absent, streaming only the {@code limit} best works.
 *
 * <p>Why here: {@code scholarkg suggest} seeds a personalized PageRank with the few dozen works
 * a text search found. GDS runs PageRank over the whole resident projection (every node, every
 * superstep: 2.7 s at 1M works) and cannot leave works out, which a query with {@code exclude}
 * and the leave-one-out fit need. A walk with a loose tolerance only reaches a few thousand
 * nodes: this procedure touches those nodes and their relationships, nothing else, and only the
 * top {@code limit} rows cross Bolt.
 *
 * <p>Semantics (equal to the client's {@code scholarkg.store.pagerank.personalized_pagerank}
 * on {@code scholarkg.graphalgo.neighbours.Without}, which is GDS's delta-form PageRank
 * restricted to the non-zero entries; tests hold the two to the same numbers): a synchronous
 * forward push. Superstep 0 puts {@code (1 - d)} on each seed (bias 1, a seed named twice
 * counts once); each later superstep, every <em>active</em> work {@code u} with delta
 * {@code r} sends {@code d * r / out'(u)} to each of its references, where {@code out'(u)}
 * counts its {@code CITES} relationships to {@code :Paper} works that are not excluded (each
 * relationship counts, as the projection's CSR sums parallel ones); a work's score is the
 * sum of everything it received, and it is active in the next superstep when what it received
 * in this one exceeds {@code tolerance} (GDS's halting rule, an absolute threshold, not ACL's
 * degree-scaled one). At most {@code maxIterations - 1} pushes. Works without references
 * keep their mass (dangling: no redistribution, as in GDS). The seeds and the excluded works
 * are never answers; works scoring 0 are not returned. Ids the graph does not hold are
 * ignored.
 *
 * <p>Cost: the relationships of the active works (each superstep), plus one index lookup per
 * seed and excluded id. The transaction's termination (timeout, the server guard) is checked
 * between pushes.
 */
public class PersonalizedPageRank {
    private static final Label PAPER = Label.label("Paper");
    private static final RelationshipType CITES = RelationshipType.withName("CITES");

    @Context
    public Transaction tx;

    @Context
    public TerminationGuard guard;

    /** One answer: the work's {@code id} property and its score. */
    public static class Row {
        public String id;
        public double score;

        public Row(String id, double score) {
            this.id = id;
            this.score = score;
        }
    }

    @Procedure(name = "scholarkg.recommend.ppr", mode = Mode.READ)
    @Description(
            "Personalized PageRank from :Paper works (ids) over CITES, without the works"
                    + " `exclude` and their relationships; streams the `limit` best other works"
                    + " (id, score), score desc then id.")
    public Stream<Row> ppr(
            @Name("seeds") List<String> seeds,
            @Name(value = "exclude", defaultValue = "[]") List<String> exclude,
            @Name(value = "limit", defaultValue = "100") long limit,
            @Name(value = "dampingFactor", defaultValue = "0.85") double dampingFactor,
            @Name(value = "maxIterations", defaultValue = "20") long maxIterations,
            @Name(value = "tolerance", defaultValue = "0.001") double tolerance) {
        if (seeds == null) {
            throw new IllegalArgumentException("seeds: a list of Paper ids is required");
        }
        if (!(dampingFactor >= 0.0 && dampingFactor < 1.0)) {
            throw new IllegalArgumentException("dampingFactor must be in [0, 1)");
        }
        if (maxIterations < 1) {
            throw new IllegalArgumentException("maxIterations must be >= 1");
        }
        if (!(tolerance >= 0.0)) {
            throw new IllegalArgumentException("tolerance must be >= 0");
        }
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be >= 0");
        }
        Set<Long> excluded = new HashSet<>();
        if (exclude != null) {
            for (String id : exclude) {
                Node node = id == null ? null : tx.findNode(PAPER, "id", id);
                if (node != null) {
                    excluded.add(node.getId());
                }
            }
        }
        // active works: node id -> (node, delta); insertion-ordered for a stable push order
        Map<Long, Node> nodes = new HashMap<>();
        Map<Long, Double> active = new java.util.LinkedHashMap<>();
        Set<Long> sources = new HashSet<>();
        double alpha = 1.0 - dampingFactor;
        for (String id : seeds) {
            Node node = id == null ? null : tx.findNode(PAPER, "id", id);
            if (node == null || excluded.contains(node.getId())) {
                continue;
            }
            if (sources.add(node.getId())) {
                nodes.put(node.getId(), node);
                active.put(node.getId(), alpha);
            }
        }
        Map<Long, Double> scores = new HashMap<>(active);
        List<Node> targets = new ArrayList<>();
        for (long step = 1; step < maxIterations && !active.isEmpty(); step++) {
            guard.check();
            Map<Long, Double> received = new java.util.LinkedHashMap<>();
            for (Map.Entry<Long, Double> e : active.entrySet()) {
                Node u = nodes.get(e.getKey());
                targets.clear();
                for (Relationship rel : u.getRelationships(Direction.OUTGOING, CITES)) {
                    Node v = rel.getEndNode();
                    if (!excluded.contains(v.getId()) && v.hasLabel(PAPER)) {
                        targets.add(v);
                    }
                }
                if (targets.isEmpty()) {
                    continue; // dangling in the graph without the excluded works
                }
                double share = dampingFactor * e.getValue() / targets.size();
                for (Node v : targets) {
                    long vid = v.getId();
                    nodes.putIfAbsent(vid, v);
                    received.merge(vid, share, Double::sum);
                }
            }
            Map<Long, Double> next = new java.util.LinkedHashMap<>();
            for (Map.Entry<Long, Double> e : received.entrySet()) {
                scores.merge(e.getKey(), e.getValue(), Double::sum);
                if (e.getValue() > tolerance) {
                    next.put(e.getKey(), e.getValue());
                }
            }
            active = next;
        }
        guard.check();
        // the `limit` best non-seed works: a bounded heap, worst on top (score asc, id desc).
        // Scores equal to 12 decimals tie (scholarkg's ranking rule, rankers/base.py tie_key:
        // sums in another order differ in the last bits), then the smaller id wins
        Comparator<Row> worstFirst = Comparator.<Row>comparingDouble(r -> tieKey(r.score))
                .thenComparing((Row r) -> r.id, Comparator.reverseOrder());
        PriorityQueue<Row> best = new PriorityQueue<>(worstFirst);
        if (limit > 0) {
            for (Map.Entry<Long, Double> e : scores.entrySet()) {
                double score = e.getValue();
                if (sources.contains(e.getKey()) || !(score > 0.0)) {
                    continue;
                }
                Row worst = best.peek();
                if (best.size() >= limit && worst != null && tieKey(score) < tieKey(worst.score)) {
                    continue;
                }
                Object id = nodes.get(e.getKey()).getProperty("id", null);
                if (id == null) {
                    continue; // a Paper without id is no answer (the projection skips it too)
                }
                best.add(new Row(id.toString(), score));
                if (best.size() > limit) {
                    best.poll();
                }
            }
        }
        List<Row> out = new ArrayList<>(best);
        out.sort(worstFirst.reversed());
        return out.stream();
    }

    /** The score rounded to 12 decimals, as numpy's round does (rint of the scaled value). */
    static double tieKey(double score) {
        return Math.rint(score * 1e12);
    }
}
