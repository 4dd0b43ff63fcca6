"""SciReplicate-Bench reasoning-graph accuracy: judge parsing, node/edge matching, the score.

The graphs themselves are built by :func:`scholarkg.codegraph.build_reasoning_graph`, which
sits below both the loaders (the loader stores each reference graph) and the metrics (this
module scores a generated graph against a reference one); its names are re-exported here for
callers that think of the whole metric as one module. Follows the released scorer
(``xyzCS/SciReplicate-Bench``, ``utils/Reason_Process_ACC.py``): judge parsing, path-based edge
matching with ``ga != gb``, ``S = (min(1, N) + min(1, E)) / 2`` and ``E = 1`` for an edge-less
reference.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from scholarkg.codegraph import (
    BEGIN_RE,
    DELIMITER_RE,
    END_RE,
    ReasoningGraph,
    ReasoningStep,
    StepStats,
    build_reasoning_graph,
    step_text,
)
from scholarkg.errors import InputError

# --- node matching -------------------------------------------------------------------------


def parse_judge_matches(response: str) -> list[list[int]]:
    """Parse a judge's ``Gen j: Ref x, Ref y`` / ``Gen j: -1`` lines (released parser).

    Every line containing ``:`` is the next generated step, in order (its label is ignored);
    items are split on commas; ``Ref x`` or ``x`` gives the 0-based index ``x - 1``; ``-1`` and
    junk give ``-1``.
    """
    matches: list[list[int]] = []
    for raw in response.split("\n"):
        line = raw.strip()
        if not line or ":" not in line:
            continue
        part = line.split(":", 1)[-1].strip()
        refs: list[int] = []
        if part == "-1":
            refs = [-1]
        else:
            for item in part.split(","):
                item = item.strip()
                if not item:
                    continue
                number = item.split()[-1] if item.lower().startswith("ref") else item
                try:
                    value = int(number)
                except ValueError:
                    refs.append(-1)
                    continue
                refs.append(-1 if value == -1 else value - 1)
        if refs:
            matches.append(refs)
    return matches


def identity_matches(n_steps: int) -> list[list[int]]:
    """Generated step j matches reference step j: the self-test judge (reference vs itself)."""
    return [[j] for j in range(n_steps)]


def format_judge_steps(graph: ReasoningGraph, prefix: str) -> str:
    """Numbered step lines as sent to the judge: ``Ref 1. <text>`` (``prefix`` Ref or Gen)."""
    return "".join(f"{prefix} {i}. {t.strip()}\n" for i, t in enumerate(graph.texts, start=1))


# --- scoring -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphScore:
    """Reasoning-graph accuracy of one task: ``score = (node + edge) / 2``."""

    score: float
    node: float
    edge: float
    matched_steps: list[int]
    matched_edges: list[tuple[int, int]]
    reason: str | None = None  # why the score is 0 by rule (no steps, parse error...)


def _has_path(adj: dict[int, list[int]], start: int, goal: int) -> bool:
    if start == goal:
        return False  # a step cannot satisfy an edge with itself
    seen = {start}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for nxt in adj.get(cur, []):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


def reasoning_graph_score(
    reference: ReasoningGraph, generated: ReasoningGraph, matches: Sequence[Sequence[int]]
) -> GraphScore:
    """Released reasoning-graph score of a generated graph given a node matching.

    ``matches[j]`` lists the 0-based reference indices generated step ``j`` implements (``-1``
    for none). N = min(1, sum of the weights of the distinct matched reference steps); a
    reference edge a->b is matched when some ga in M(a) and gb in M(b), ga != gb, are joined by
    a directed path in the generated graph; E = min(1, sum of matched edge weights), or 1 if
    the reference has no edges.

    Indexing, as released: judge index ``i`` names step ``Snippet i+1`` for node weights,
    generated ``j`` is the j-th step in boundary order, and a reference edge between the steps
    at boundary positions ``p -> q`` is looked up by judge indices ``p, q`` and weighted as
    ``Snippet p+1 -> Snippet q+1``. With steps numbered 1..n in file order (every well-formed
    task) all of these agree; on malformed numbering the released mix-up is reproduced.
    """
    if reference.parse_error is not None:
        raise InputError(f"reference code does not parse ({reference.parse_error})", field="code")
    weights = reference.weights()
    if not weights:
        return GraphScore(0.0, 0.0, 0.0, [], [], "reference has zero total weight")
    if generated.parse_error is not None:
        return GraphScore(
            0.0, 0.0, 0.0, [], [], f"generated code does not parse ({generated.parse_error})"
        )
    if not generated.steps:
        return GraphScore(0.0, 0.0, 0.0, [], [], "no generated steps")
    if not matches:
        return GraphScore(0.0, 0.0, 0.0, [], [], "empty judge answer")
    ref_to_gen: dict[int, list[int]] = {}
    for j, refs in enumerate(matches):
        for r in refs:
            if r >= 0:
                ref_to_gen.setdefault(r + 1, []).append(j)
    matched_steps = sorted(k for k in ref_to_gen if k in weights)
    node = min(1.0, float(sum(weights[k] for k in matched_steps)))

    position = {s.snippet: j for j, s in enumerate(generated.steps)}
    adj: dict[int, list[int]] = {}
    for a, b in sorted(generated.edges):
        adj.setdefault(position[a], []).append(position[b])
    edge_w = reference.edge_weights()
    ref_pos = {s.snippet: i + 1 for i, s in enumerate(reference.steps)}  # 1-based positions
    matched_edges: list[tuple[int, int]] = []
    for a, b in sorted((ref_pos[a], ref_pos[b]) for a, b in reference.edges):
        sources, targets = ref_to_gen.get(a, []), ref_to_gen.get(b, [])
        if any(_has_path(adj, ga, gb) for ga in sources for gb in targets):
            matched_edges.append((a, b))
    edge = 1.0 if not edge_w else min(1.0, sum(edge_w.get(e, 0.0) for e in matched_edges))
    return GraphScore((node + edge) / 2, node, edge, matched_steps, matched_edges)


__all__ = [
    "BEGIN_RE",
    "DELIMITER_RE",
    "END_RE",
    "GraphScore",
    "ReasoningGraph",
    "ReasoningStep",
    "StepStats",
    "build_reasoning_graph",
    "format_judge_steps",
    "identity_matches",
    "parse_judge_matches",
    "reasoning_graph_score",
    "step_text",
]
