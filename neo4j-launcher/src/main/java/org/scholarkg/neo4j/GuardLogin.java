package org.scholarkg.neo4j;

import java.util.Set;

import org.neo4j.internal.kernel.api.connectioninfo.ClientConnectionInfo;
import org.neo4j.internal.kernel.api.security.AbstractSecurityLog;
import org.neo4j.internal.kernel.api.security.AccessMode;
import org.neo4j.internal.kernel.api.security.AdminAccessMode;
import org.neo4j.internal.kernel.api.security.AuthSubject;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.internal.kernel.api.security.SecurityContext;
import org.neo4j.kernel.database.PrivilegeDatabaseReference;

/**
 * The {@link ServerGuard}'s own login, inside the server's JVM: full access, and the role GDS
 * reads as an administrator's ({@code admin}), so that {@code gds.graph.list()} shows the graphs
 * of every user and {@code gds.graph.drop} can drop them. Neo4j Community has no roles, so no
 * Bolt user is a GDS administrator and each sees only the graphs it made.
 */
final class GuardLogin extends LoginContext {
    GuardLogin() {
        super(AuthSubject.AUTH_DISABLED, ClientConnectionInfo.EMBEDDED_CONNECTION);
    }

    @Override
    public SecurityContext authorize(
            IdLookup idLookup, PrivilegeDatabaseReference database, AbstractSecurityLog log) {
        return new Context(subject, AccessMode.Static.FULL, connectionInfo(), database.name());
    }

    /** Full access with the {@code admin} role, kept when Neo4j narrows the mode for a procedure. */
    static final class Context extends SecurityContext {
        Context(AuthSubject subject, AccessMode mode, ClientConnectionInfo info, String database) {
            super(subject, mode, info, database);
        }

        @Override
        public Set<String> roles() {
            return Set.of("admin");
        }

        @Override
        public SecurityContext withMode(AccessMode mode) {
            return new Context(subject, mode, connectionInfo(), database());
        }

        @Override
        public SecurityContext withMode(AdminAccessMode mode) {
            return new Context(subject, this.mode, connectionInfo(), database());
        }
    }
}
