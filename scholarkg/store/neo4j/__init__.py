"""The Neo4j 5 + GDS backend: the ``GraphStore`` over the official driver (``store.py``), its
Cypher spellings (``dialect.py``), the project-managed server built from Maven Central
(``server.py``) and the offline importer for a new database (``importer.py``).

Nothing outside ``scholarkg.store`` imports these modules to *get* a store: ``open_store`` does.
"""
