package org.scholarkg.neo4j.procedures;

import java.util.stream.Stream;

import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.procedure.Context;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Procedure;
import org.neo4j.storageengine.api.TransactionIdStore;

/**
 * {@code CALL scholarkg.lastCommittedTxId()}: the id of this database's last committed
 * transaction.
 *
 * <p>Why: scholarkg keeps GDS projections resident and rebuilds them only when the database
 * changed, which needs a token that moves with every committed write. {@code SHOW DATABASES}
 * has such a column ({@code lastCommittedTxn}), but Neo4j Community leaves it empty; this
 * procedure reads the same counter. Packaged into its own jar in the plugin directory.
 */
public class TransactionState {
    @Context
    public GraphDatabaseService db;

    /** One row: the transaction id. */
    public static class Row {
        public long txId;

        public Row(long txId) {
            this.txId = txId;
        }
    }

    @Procedure(name = "scholarkg.lastCommittedTxId", mode = Mode.READ)
    @Description("The last committed transaction id of the current database.")
    public Stream<Row> lastCommittedTxId() {
        TransactionIdStore ids = ((GraphDatabaseAPI) db).getDependencyResolver()
                .resolveDependency(TransactionIdStore.class);
        return Stream.of(new Row(ids.getLastCommittedTransactionId()));
    }
}
