package org.scholarkg.neo4j;

import org.neo4j.kernel.api.exceptions.Status;

/**
 * What a query stopped by the {@link HeapGuard} ends with: an error the client is sent (Neo4j
 * reports a {@link Status.HasStatus} with its code and this message), where the plain
 * {@link ThreadDeath} of {@link Thread#stop()} has no message and Bolt could not encode it (the
 * client then waited for an answer that never came).
 *
 * <p>A database error, not a transient one: drivers retry transient errors, and the query
 * would take the heap again.
 */
final class QueryStopped extends RuntimeException implements Status.HasStatus {
    private static final long serialVersionUID = 1L;

    QueryStopped(String message) {
        super(message, null, false, false);
    }

    @Override
    public Status status() {
        return Status.Statement.ExecutionFailed;
    }
}
