"""Reasoning graphs from step-annotated code and the released RG score, checked by hand."""

from __future__ import annotations

import pytest

from scholarkg.benchmark.metrics.code_graph import (
    build_reasoning_graph,
    format_judge_steps,
    identity_matches,
    parse_judge_matches,
    reasoning_graph_score,
)
from scholarkg.errors import InputError


def step(k: int, desc: str, code: str) -> str:
    """One step in the released annotation format."""
    return (
        f"# ---------------------------------------------------------------\n"
        f"# Snippet {k}: {desc}\n"
        f"# ---------------------------------------------------------------\n"
        f"# [Begin Snippet {k}]\n{code}\n# [End Snippet {k}]\n"
    )


REFERENCE = step(1, "double", "y = x*2") + step(2, "inc", "z = y+1") + step(3, "mul", "out = z*y")
REFERENCE += "return out\n"
GENERATED = step(1, "double and inc", "y = x*2\nz = y+1") + step(2, "mul", "out = z*y")
GENERATED += "return out\n"


def test_hand_example_weights_and_edges() -> None:
    g = build_reasoning_graph(REFERENCE)
    assert [s.snippet for s in g.steps] == [1, 2, 3]
    assert [s.text for s in g.steps] == ["double", "inc", "mul"]
    # y = x*2: L1 Vd{y} Vu{x} Vt2 C0 O1 -> score .55 -> total 6.55; out = z*y: Vu 2, Vt 3 -> 8.65
    assert [s.stats.total for s in g.steps if s.stats] == pytest.approx([6.55, 6.55, 8.65])
    assert g.edges == {(1, 2), (1, 3), (2, 3)}
    w = g.weights()
    assert [w[1], w[2], w[3]] == pytest.approx([6.55 / 21.75, 6.55 / 21.75, 8.65 / 21.75])
    ew = g.edge_weights()
    norm = w[1] * w[2] + w[1] * w[3] + w[2] * w[3]
    assert ew[(1, 2)] == pytest.approx(w[1] * w[2] / norm)
    assert [ew[(1, 2)], ew[(1, 3)], ew[(2, 3)]] == pytest.approx(
        [0.27464, 0.36268, 0.36268], abs=1e-5
    )


def test_hand_example_scores() -> None:
    ref, gen = build_reasoning_graph(REFERENCE), build_reasoning_graph(GENERATED)
    assert gen.edges == {(1, 2)}
    full = reasoning_graph_score(ref, gen, parse_judge_matches("Gen 1: Ref 1, Ref 2\nGen 2: Ref 3"))
    # all nodes matched; edge 1->2 maps to one generated step (ga == gb) and does not count
    assert full.node == pytest.approx(1.0)
    assert full.matched_edges == [(1, 3), (2, 3)]
    assert full.score == pytest.approx(0.862683, abs=1e-6)
    partial = reasoning_graph_score(ref, gen, parse_judge_matches("Gen 1: Ref 1\nGen 2: Ref 3"))
    assert partial.score == pytest.approx(0.530767, abs=1e-6)
    none = reasoning_graph_score(ref, gen, parse_judge_matches("Gen 1: -1\nGen 2: -1"))
    assert (none.score, none.node, none.edge) == (0.0, 0.0, 0.0)


def test_reference_against_itself_scores_one() -> None:
    ref = build_reasoning_graph(REFERENCE)
    res = reasoning_graph_score(ref, ref, identity_matches(3))
    assert res.score == pytest.approx(1.0)


def test_edgeless_reference_gets_full_edge_part() -> None:
    ref = build_reasoning_graph(step(1, "a", "p = 1") + step(2, "b", "q = 2"))
    assert ref.edges == frozenset()
    assert reasoning_graph_score(ref, ref, [[-1], [-1]]).score == pytest.approx(0.5)
    assert reasoning_graph_score(ref, ref, identity_matches(2)).score == pytest.approx(1.0)


def test_edge_matched_through_a_longer_generated_path() -> None:
    ref = build_reasoning_graph(step(1, "a", "a = x") + step(2, "b", "b = a"))
    gen = build_reasoning_graph(
        step(1, "a", "a = x") + step(2, "mid", "m = a") + step(3, "b", "b = m")
    )
    assert gen.edges == {(1, 2), (2, 3)}
    res = reasoning_graph_score(ref, gen, [[0], [-1], [1]])
    assert res.matched_edges == [(1, 2)]
    assert res.score == pytest.approx(1.0)
    reverse = reasoning_graph_score(ref, gen, [[1], [-1], [0]])  # path runs the wrong way
    assert reverse.matched_edges == []
    assert reverse.score == pytest.approx(0.5)


def test_zero_score_rules() -> None:
    ref = build_reasoning_graph(REFERENCE)
    broken = build_reasoning_graph(step(1, "a", "y = (x*2"))
    res = reasoning_graph_score(ref, broken, [[0]])
    assert res.score == 0.0
    assert res.reason is not None and "does not parse" in res.reason
    no_steps = build_reasoning_graph("y = x * 2\nreturn y\n")
    assert reasoning_graph_score(ref, no_steps, [[0]]).reason == "no generated steps"
    assert reasoning_graph_score(ref, ref, []).reason == "empty judge answer"
    with pytest.raises(InputError, match="reference code does not parse"):
        reasoning_graph_score(broken, ref, [[0]])


def test_out_of_range_judge_indices_are_ignored() -> None:
    ref = build_reasoning_graph(REFERENCE)
    gen = build_reasoning_graph(GENERATED)
    res = reasoning_graph_score(ref, gen, parse_judge_matches("Gen 1: Ref 9\nGen 2: Ref 3"))
    assert res.matched_steps == [3]
    assert res.node == pytest.approx(8.65 / 21.75)


def test_step_counts_by_hand() -> None:
    code = step(
        1,
        "loop",
        "total = 0\nfor v in values:\n    total += f(v)\nout[0], n = g(total), 1",
    )
    s = build_reasoning_graph(code).steps[0].stats
    assert s is not None
    # defined: total, out? no -- out[0] is a subscript (used base), n  -> {total, n}
    # used (Load): values, total (AugAssign target + g arg), f, v, g, out -> 6
    assert (s.lines, s.defined, s.used, s.variables) == (4, 2, 6, 7)
    assert (s.calls, s.operations) == (2, 2)  # f(), g(); For + AugAssign
    assert s.score == pytest.approx(round(0.3 * 2 + 0.2 * 2 + 0.1 * 7 + 0.05 * 4, 2))
    assert s.total == pytest.approx(4 + 2 + 6 + 7 + 2 + 2 + s.score)
    assert not s.fallback


def test_snippet_that_does_not_parse_alone_uses_whole_function_ast() -> None:
    code = step(1, "check", "if x > 0:\n    y = x") + step(2, "otherwise", "else:\n    y = -x")
    g = build_reasoning_graph(code + "return y\n")
    first, second = (s.stats for s in g.steps)
    assert first is not None and second is not None
    # snippet 1 parses alone: L2 Vd{y} Vu{x} Vt2 C0 O1 (If) -> score .6, total 7.6
    assert first.total == pytest.approx(7.6) and first.fallback is False
    # snippet 2 ("else:" block) counted on the whole AST within its lines: L2 Vd1 Vu1 Vt2
    assert second.total == pytest.approx(2 + 1 + 1 + 2 + 0.3) and second.fallback is True


def test_data_flow_rules() -> None:
    mutator = build_reasoning_graph(
        step(1, "init", "acc = []")
        + step(2, "fill", "acc.append(v)")
        + step(3, "use", "n = len(acc)")
    )
    assert mutator.edges == {(1, 2), (2, 3)}  # append redefines acc in step 2
    outside = build_reasoning_graph(
        step(1, "a", "a = x + 1") + "b = a * 2\n" + step(2, "c", "c = b + 1")
    )
    assert outside.edges == {(1, 2)}  # b, assigned outside steps, inherits a's step
    loop = build_reasoning_graph(
        step(1, "i", "i = 0")
        + step(2, "loop", "for i in range(3):\n    pass")
        + step(3, "k", "k = i")
    )
    assert loop.edges == {(1, 3)}  # loop targets define nothing
    tuples = build_reasoning_graph(step(1, "t", "p, q = f(x)") + step(2, "u", "r = q"))
    assert tuples.edges == {(1, 2)}


def test_begin_without_end_runs_to_next_delimiter() -> None:
    code = (
        "# ---\n# Snippet 1: open\n# ---\n# [Begin Snippet 1]\n"  # lines 1-4
        "a = x\n"  # 5
        "b = 5\n"  # 6
        "# ---\n# Snippet 2: closed\n# ---\n# [Begin Snippet 2]\n"  # 7-10
        "c = b\n# [End Snippet 2]\n"  # 11-12
        "# ---\n# Snippet 3: open at the end\n# ---\n# [Begin Snippet 3]\nd = c\n"  # 13-17
    )
    g = build_reasoning_graph(code)
    # step 1 ends on line 6 (before the delimiter); step 3 has no later Begin and is dropped
    assert [(s.snippet, s.start, s.end) for s in g.steps] == [(2, 10, 12), (1, 4, 6)]
    # the released line map stops one line short: b = 5 (line 6) is assigned outside any
    # step, so c = b in step 2 does not depend on step 1
    assert g.edges == frozenset()
    assert g.by_snippet[1].stats is not None and g.by_snippet[1].stats.lines == 2
    assert g.prompt_order == [1, 2]  # the judge sees steps in first-Begin order
    assert g.texts == ["open", "closed"]


def test_malformed_numbering_reproduces_released_index_mixup() -> None:
    code = (
        "# ---\n# Snippet 1: one\n# ---\n# [Begin Snippet 1]\na = 1\n# [End Snippet 1]\n"
        "# ---\n# Snippet 2: two\n# ---\n# [Begin Snippet 2]\nb = a\n"
        "# [Begin Snippet 2]\nc = b\n\n"  # Snippet 2 "closed" by a second Begin marker
        "# ---\n# Snippet 3: three\n# ---\n# [Begin Snippet 3]\nd = c\n# [End Snippet 3]\n"
    )
    g = build_reasoning_graph(code)
    assert [(s.snippet, s.start, s.end) for s in g.steps] == [(1, 4, 6), (3, 18, 20), (2, 12, 14)]
    assert g.edges == {(1, 2), (2, 3)}
    # boundary positions and snippet names disagree, so no matched edge finds its weight:
    # the reference scored against itself gets N = 1, E = 0 (released task 5/1 scores 0.5)
    res = reasoning_graph_score(g, g, identity_matches(3))
    assert res.node == pytest.approx(1.0) and res.edge == 0.0 and res.score == pytest.approx(0.5)


def test_step_text_takes_text_after_first_colon_of_each_line() -> None:
    code = (
        "    x = 1\n"
        "    # ---\n"
        "    # Snippet 1: Normalise the scores: divide by the sum\n"
        "    # Note that empty input is allowed\n"
        "    # Formula: $s_i / \\sum_j s_j$\n"
        "    # ---\n"
        "    # [Begin Snippet 1]\n"
        "    s = x / 2\n"
        "    # [End Snippet 1]\n"
    )
    g = build_reasoning_graph(code)
    assert g.texts == [
        "Normalise the scores: divide by the sum Note that empty input is allowed "
        "$s_i / \\sum_j s_j$"
    ]
    assert format_judge_steps(g, "Ref").startswith("Ref 1. Normalise the scores")


def test_parse_judge_matches() -> None:
    response = (
        "Gen 1: Ref 1, Ref 2\nGen 2: -1\nsome preamble without colon\nGen 3: 3, foo\n\nX: Ref -1"
    )
    assert parse_judge_matches(response) == [[0, 1], [-1], [2, -1], [-1]]
    assert parse_judge_matches("no answer") == []
    assert identity_matches(2) == [[0], [1]]


def test_non_string_code_rejected() -> None:
    with pytest.raises(InputError):
        build_reasoning_graph(None)  # type: ignore[arg-type]  # the wrong type is the test
