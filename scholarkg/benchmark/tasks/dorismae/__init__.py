"""DORIS-MAE on the graph: the pool re-ranking task, its baselines and our rankers."""
