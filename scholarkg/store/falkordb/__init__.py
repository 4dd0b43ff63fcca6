"""The embedded FalkorDB backend: the server process we own (``server.py``, ``persistence.py``),
its Cypher spellings (``dialect.py``), the ``GraphStore`` over RESP (``store.py``), the
``GRAPH.BULK`` loader (``bulk.py`` with its columnar reader and value encoding) and ``db backup``.

Nothing outside ``scholarkg.store`` imports these modules to *get* a store: ``open_store`` does.
"""
