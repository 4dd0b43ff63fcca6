"""CodeBLEU (real codebleu package, offline), execution accuracy, recall and RG aggregation."""

from __future__ import annotations

import numpy as np
import pytest

from scholarkg.benchmark.metrics.code import (
    DependencyTask,
    codebleu_pair,
    codebleu_scores,
    dependency_recall,
    embedding_matches,
    execution_accuracy,
    find_external_apis,
    find_local_calls,
    find_method_dependencies,
    found_dependencies,
    import_statements,
    pooled_recall,
    reasoning_graph_accuracy,
    splice_answer,
    strip_code_fence,
    strip_comments,
)
from scholarkg.benchmark.metrics.similarity import l2_normalise
from scholarkg.errors import InputError
from scholarkg.loaders.scireplicate_data import assemble_reference_code


class Bow:
    def __init__(self, vocab: str = "a b c") -> None:
        self.vocab = {w: i for i, w in enumerate(vocab.split())}

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(self.vocab)))
        for r, text in enumerate(texts):
            for word in text.split():
                out[r, self.vocab[word]] += 1
        return l2_normalise(out)


def test_strip_comments_released_order() -> None:
    code = (
        "def f(a):  \n"
        '    """Docstring with words."""\n'
        "\n"
        "    s = 'x#y'  # trailing comment\n"
        "    # a whole comment line\n"
        "    return s   \n"
    )
    # '#' is cut even inside the string literal (released quirk)
    assert strip_comments(code) == "def f(a):\n    s = 'x\n    return s"
    assert strip_comments("x = '''a\nb'''\ny = 1") == "x =\ny = 1"


def test_assemble_reference_code() -> None:
    body = "# [Begin Snippet 1]\ny = x\n# [End Snippet 1]\nreturn y\n"
    out = assemble_reference_code("def f(self, x):", body, 2)
    assert out.splitlines() == [
        "def f(self, x):",
        "        # [Begin Snippet 1]",
        "        y = x",
        "        # [End Snippet 1]",
        "        return y",
    ]
    with pytest.raises(InputError):
        assemble_reference_code("def f():", body, -1)


REF = "def f(a, b):\n    c = a + b\n    return c * 2"
RENAMED = "def f(x, y):\n    z = x + y\n    return z * 2"


def test_codebleu_reference_checks_from_the_sheet() -> None:
    assert codebleu_pair(REF, REF)["codebleu"] == pytest.approx(1.0)
    renamed = codebleu_pair(REF, RENAMED)
    assert renamed["codebleu"] == pytest.approx(0.5247, abs=1e-4)
    assert renamed["ngram_match_score"] == pytest.approx(0.0474, abs=1e-4)
    assert renamed["weighted_ngram_match_score"] == pytest.approx(0.0516, abs=1e-4)
    assert (renamed["syntax_match_score"], renamed["dataflow_match_score"]) == (1.0, 1.0)
    # data-flow 0 counts as 1 in the composite: an unrelated answer still gets 0.25
    unrelated = codebleu_pair("def f(a):\n    b = a * 2\n    return b", "print(1)")
    assert unrelated["codebleu"] == pytest.approx(0.25)


def test_codebleu_ignores_comments_and_averages_per_task() -> None:
    commented = "def f(a, b):\n    # add them\n    c = a + b  # sum\n    return c * 2\n"
    seen: list[int] = []
    res = codebleu_scores([REF, REF], [commented, RENAMED], progress=lambda d, t: seen.append(d))
    assert res.per_task[0]["codebleu"] == pytest.approx(1.0)
    assert res.codebleu == pytest.approx((1.0 + res.per_task[1]["codebleu"]) / 2)
    assert res.means["syntax_match_score"] == pytest.approx(1.0)
    assert seen == [1, 2]
    with pytest.raises(InputError):
        codebleu_scores([REF], [])
    with pytest.raises(InputError):
        codebleu_scores([], [])


def test_execution_accuracy_released_denominator() -> None:
    res = execution_accuracy({"0/0": True, "0/1": False, "1/0": True})
    assert (res.value, res.status, res.passed, res.failed) == (0.02, "ok", 2, 1)
    over_tasks = execution_accuracy({"0/0": True, "0/1": False, "1/0": True}, denominator=None)
    assert over_tasks.value == pytest.approx(2 / 3)
    assert execution_accuracy({"a": False}).value == 0.0
    assert execution_accuracy({"a": True}, denominator=1).value == 1.0


def test_execution_accuracy_unavailable_is_never_zero() -> None:
    res = execution_accuracy({"0/0": True, "0/1": None})
    assert (res.value, res.status, res.unavailable) == (None, "unavailable", 1)
    assert execution_accuracy({}).status == "unavailable"
    with pytest.raises(InputError, match="task 'x'"):
        execution_accuracy({"x": "pass"})  # type: ignore[dict-item]  # the wrong type is the test
    with pytest.raises(InputError, match="exceed"):
        execution_accuracy({"a": True, "b": True}, denominator=1)


def test_pooled_recall_is_micro() -> None:
    res = pooled_recall([(["a", "b"], {"a"}), (["c"], {"c", "d"}), ([], {"x"})])
    assert (res.hits, res.annotated) == (2, 3)
    assert res.value == pytest.approx(2 / 3)  # macro over tasks would be (0.5 + 1) / 2
    assert pooled_recall([([], set())]).value == 0.0
    assert pooled_recall([(["a", "a"], ["a"])]).hits == 2
    with pytest.raises(InputError):
        pooled_recall([("abc", set())])


def test_dependency_recall_per_category() -> None:
    tasks = [
        DependencyTask(api=["torch.mean"], intra_file=["helper"], cross_file=[], found={"helper"}),
        DependencyTask(
            api=["numpy.sum", "torch.mean"],
            intra_file=[],
            cross_file=["pkg.mod.fn"],
            found={"torch.mean", "pkg.mod.fn"},
        ),
    ]
    res = dependency_recall(tasks)
    assert (res["api"].hits, res["api"].annotated) == (1, 3)
    assert res["intra_file"].value == 1.0
    assert res["cross_file"].value == 1.0


def test_reasoning_graph_accuracy_drops_failed_tasks() -> None:
    res = reasoning_graph_accuracy({"t1": 1.0, "t2": None, "t3": 0.5})
    assert (res.value, res.scored, res.dropped) == (0.75, 2, ["t2"])
    assert reasoning_graph_accuracy({"t": None}).value is None
    with pytest.raises(InputError):
        reasoning_graph_accuracy({"t": float("nan")})


def test_embedding_matches_offline_judge() -> None:
    got = embedding_matches(["a", "b"], ["a", "c", "b a"], encoder=Bow())
    assert got == [[0], [-1], [0]]  # "b a" ties at 0.707: the earlier reference wins
    assert embedding_matches(["a"], [], encoder=Bow()) == []
    assert embedding_matches([], ["a"], encoder=Bow()) == [[-1]]
    assert embedding_matches(["a"], ["a b"], encoder=Bow(), threshold=0.8) == [[-1]]


# --- found dependencies (synthetic target file in the Data.json layout) ------------------------

TARGET_FILE = """import numpy as np
import torch.nn.functional as F
from collections import Counter as C
from .utils import helper_fn as hf
from pkg.models import Encoder


def local_util(x):
    return x


class Model:
    def __init__(self):
        self.scale = 2
        self.enc = Encoder()

    def prep(self, x):
        return x

    def forward(self, x):
        return x

"""
# forward: signature on line 20, body on line 21 (1-based)
ANSWER = """def forward(self, x):
    y = self.prep(x) * self.scale
    z = np.mean(y)
    w = F.softmax(z)
    c = C(w)
    h = hf(c)
    e = self.enc(h)
    v = local_util(e)
    out = y.sum()
    return np.linalg.norm(v) + out
"""
EXPECTED = {
    "numpy.mean",
    "torch.nn.functional.softmax",
    "collections.Counter",
    "utils.helper_fn",
    "numpy.linalg.norm",
    "local_util",
    "Model.prep",
    "Model.scale",
    "Model.enc",
}


def _found(answer: str) -> set[str]:
    return found_dependencies(
        answer,
        ori_python_file=TARGET_FILE,
        signature_position=[20, 20],
        body_position=[21, 21],
        indent=2,
        task_type="method",
        namespace="pkg.model.Model.forward",
    )


def test_found_dependencies_method_task() -> None:
    assert _found(ANSWER) == EXPECTED
    assert _found("Here it is:\n```python\n" + ANSWER + "```\nDone.") == EXPECTED


def test_found_dependencies_broken_code_finds_nothing() -> None:
    assert _found("def forward(self, x):\n    return (x\n") == set()


def test_recall_from_found_dependencies() -> None:
    task = DependencyTask(
        api=["numpy.mean", "torch.cat"],
        intra_file=["local_util"],
        cross_file=["pkg.models.Encoder"],
        found=_found(ANSWER),
    )
    res = dependency_recall([task])
    assert (res["api"].hits, res["api"].annotated) == (1, 2)
    assert res["intra_file"].value == 1.0
    assert res["cross_file"].value == 0.0  # Encoder() is only called in __init__


def test_api_alias_resolution_rules() -> None:
    code = (
        "from pkg import x\n"
        "import os.path\n"
        "from torch.nn.functional import softmax\n"
        "import torch.nn.functional as F\n"
        "x.x.f()\n"  # duplicated segment dropped
        "os.path.join('a')\n"  # leftmost 'os' is not an alias key: ignored
        "F.softmax(1)\n"  # last component imported directly wins
        "from m import *\n"
        "star_fn()\n"  # star imports are ignored
    )
    assert find_external_apis(code) == {"pkg.x.f", "torch.nn.functional.softmax"}


def test_local_calls_last_definition_wins() -> None:
    code = (
        "def a():\n    pass\n\ndef b():\n    pass\n\n"
        "class P:\n    def run(self):\n        a()\n\n"
        "class Q:\n    def run(self):\n        b()\n        len([])\n"
    )
    assert find_local_calls(code, "run") == {"b"}
    with pytest.raises(InputError):
        find_local_calls(code, "missing")


def test_method_dependencies_rules() -> None:
    cls = (
        "class K:\n"
        "    def __init__(self):\n"
        "        self.a = 1\n"
        "        self.b, self.c = 2, 3\n"  # tuple targets are not attributes
        "    def helper(self):\n        return 0\n"
        "    def target(self):\n"
        "        return self.a + self.b + self.helper() + self.unknown\n"
    )
    assert find_method_dependencies(cls, "target") == ({"a"}, {"helper"})


def test_splice_inserts_one_line_below() -> None:
    ori = "l1\ndef f():\n    return 1\nl4\nl5"
    assert splice_answer(ori, [2, 2], [3, 3], "NEW", 1).split("\n") == ["l1", "l4", "NEW", "l5"]
    with pytest.raises(InputError):
        splice_answer(ori, [4, 4], [9, 9], "NEW", 1)


def test_import_statements_and_fence() -> None:
    src = "import a\ndef g():\n    from b import c as d\n    return d\n"
    assert import_statements(src) == ["import a", "from b import c as d"]
    assert import_statements("def (:") == []
    assert strip_code_fence("```python\nx = 1\n```") == "\nx = 1\n"
    assert strip_code_fence("  x = 1  ") == "x = 1"
