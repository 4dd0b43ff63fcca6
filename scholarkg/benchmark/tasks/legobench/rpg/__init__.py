"""LEGOBench RPG (ranked paper generation): the task's graph side, one module per concern.

``core`` reads queries, ground truth and candidates and scores rankings; ``rankers`` holds the
paper's PageRank baseline and ours; ``features``, ``dates`` and ``paging`` feed them;
``model`` is the pairwise model and its stored coefficients (``../models/rpg_pairwise.json``),
``training`` refits them, ``pipeline`` runs a configuration end to end for the benchmarks.
The task itself (``RPGTask``) is declared in ``legobench/task.py``.
"""
