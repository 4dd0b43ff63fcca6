"""SciReplicate-Bench on the graph: the task, its scoring, sandbox, agent look-ups and agent."""
