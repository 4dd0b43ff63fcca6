"""Citation recommendation on the user's own graph: ``scholarkg suggest`` and ``related``.

The rankers that win the citation-recommendation benchmarks (text rankers fused with the
citation graph) as a library a command, a script or the explorer calls, fitted on whatever
graph is loaded:

* :mod:`.text` — BM25 (bm25s, cached per graph version) and the store's vector index over
  the works that have text;
* :mod:`.signals` — the graph around the works the text finds: their references,
  co-citation, bibliographic coupling, personalized PageRank, FastRP neighbours and
  in-degree, on the client-side projection (:mod:`scholarkg.graphalgo.neighbours`,
  :mod:`scholarkg.graphalgo.fastrp_without`) or, on Neo4j, in GDS and Cypher on the server;
  each computed as if the works a query excludes and their edges were absent;
* :mod:`.model` — :class:`~.model.Recommender`: the inputs, their fusion, the rows a user
  reads (each saying why), batch runs;
* :mod:`.fit` — the fusion fitted on the graph's own training pairs (each loaded work's text
  → its reference list, the work left out), stored with the graph version (:mod:`.state`);
* :mod:`.related` — works related to one work: co-citation, coupling, FastRP and text.

Layer: above ``benchmark`` (it reuses ``benchmark/rankers``: BM25, fusion and its fit), below
the families' packages, the explorer and the CLI (``tests/core/test_layering.py``).
"""
