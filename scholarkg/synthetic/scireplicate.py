"""A synthetic SciReplicate-Bench in the released ``Data.json`` format, with sources on disk.

Why: the released file has no licence and embeds third-party code and LaTeX, so tests and
benchmarks need a stand-in that exercises every part of the format: functions and methods,
step-annotated reference bodies (data flow between steps), intra-file helpers, ``self.x``
attributes, a cross-file import, external APIs (the standard library's ``math`` and
``statistics``, so generated repositories run anywhere), LaTeX sources with labelled
sections and a cited bibliography, and a runnable check script per repository for the
execution sandbox. Everything is made up (``w017``-style words); nothing is copied.

:func:`generate` returns the ``Data.json`` list; :func:`write_benchmark` writes it with the
``papers/`` and ``repos/`` folders the loader's ``--papers-dir`` / ``--repos-dir`` read.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DELIM = "# " + "-" * 75
CHECK_SCRIPT = """import sys

import model

name = sys.argv[1]
if hasattr(model, name):
    out = getattr(model, name)(3.0)
else:
    out = getattr(model.Scorer(2.0), name)(3.0)
print(repr(round(out, 6)))
"""
HELPERS = """import math


def normalize(x):
    return x / (1.0 + abs(x))


def clip(x, lo=-10.0, hi=10.0):
    return max(lo, min(hi, x)) + 0.0 * math.pi
"""
MODULE_HEAD = """import math
import statistics
from utils.helpers import normalize


def helper_a(x):
    return x + 1.0


def helper_b(x):
    return x * 0.5

"""


def _words(rng: random.Random, n: int) -> str:
    return " ".join(f"w{rng.randrange(1000):03d}" for _ in range(n))


@dataclass
class _Step:
    description: str
    lines: list[str]
    apis: list[str] = field(default_factory=list)
    intra: list[str] = field(default_factory=list)
    cross: list[str] = field(default_factory=list)


def _make_steps(rng: random.Random, n_steps: int, method: bool, arg: str) -> list[_Step]:
    """A chain of steps; each reads one or two earlier variables (data-flow edges)."""
    names = [arg]
    steps: list[_Step] = []
    for i in range(1, n_steps + 1):
        var = f"v{i}"
        prev = names[-1]
        other = rng.choice(names)
        kind = rng.randrange(6 if method else 5)
        step = _Step(f"Step {i} {_words(rng, 5)}.", [])
        if kind == 0:
            step.lines = [f"{var} = math.sqrt(abs({prev}) + {rng.randint(1, 9)}.0)"]
            step.apis = ["math.sqrt"]
        elif kind == 1:
            helper = rng.choice(["helper_a", "helper_b"])
            step.lines = [f"{var} = {helper}({prev}) + {other}"]
            step.intra = [helper]
        elif kind == 2:
            step.lines = [f"{var} = normalize({prev})"]
            step.cross = ["utils.helpers.normalize"]
        elif kind == 3:
            step.lines = [f"{var} = statistics.mean([{prev}, {other}, {rng.randint(1, 5)}.0])"]
            step.apis = ["statistics.mean"]
        elif kind == 4:
            step.lines = [f"tmp{i} = {prev} * {rng.randint(2, 4)}.0", f"{var} = tmp{i} - {other}"]
        else:
            step.lines = [f"{var} = {prev} * self.scale + self._shift({other})"]
            step.intra = ["Scorer.scale", "Scorer._shift"]
        names.append(var)
        steps.append(step)
    return steps


def _annotated_body(steps: list[_Step], result: str) -> str:
    parts = [""]
    for i, step in enumerate(steps, start=1):
        parts += [DELIM, f"# Snippet {i}: {step.description}", DELIM, f"# [Begin Snippet {i}]"]
        parts += step.lines
        parts += [f"# [End Snippet {i}]", ""]
    parts += [f"return {result}", ""]
    return "\n".join(parts)


def _plain_body(steps: list[_Step], result: str) -> list[str]:
    lines: list[str] = []
    for step in steps:
        lines += step.lines
    return [*lines, f"return {result}"]


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def generate(
    n_papers: int = 4,
    n_tasks: int = 10,
    *,
    seed: int = 7,
    steps: tuple[int, int] = (2, 8),
    arxiv_ids: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """``n_tasks`` tasks over ``n_papers`` papers (first ones get one more when uneven).

    ``arxiv_ids``: arXiv ids for the first papers' URLs (in order; the rest keep
    ``0001.<n>``), so another corpus's papers meet these under the id rules (the demo)."""
    if n_papers < 1 or n_tasks < n_papers:
        raise ValueError("need at least one paper and one task per paper")
    rng = random.Random(seed)
    data: list[dict[str, Any]] = []
    n_done = 0
    for p in range(n_papers):
        count = n_tasks // n_papers + (1 if p < n_tasks % n_papers else 0)
        tasks: list[dict[str, Any]] = []
        methods: list[tuple[str, list[str], dict[str, Any]]] = []
        functions: list[tuple[str, list[str], dict[str, Any]]] = []
        for t in range(count):
            method = (n_done * 11) % 20 >= 9  # 55 % methods, interleaved, as released
            n_done += 1
            name = f"{'method' if method else 'func'}_{p}_{t}"
            chain = _make_steps(rng, rng.randint(*steps), method, "x")
            result = f"v{len(chain)}"
            task: dict[str, Any] = {
                "task_id": t,
                "indent": 2 if method else 1,
                "script": f"\npython run_check.py {name}\n",
                "completion_path": "./model.py",
                "latex_code": f"\n\\begin{{equation}} y = f_{{{t}}}(x) \\end{{equation}} "
                f"{_words(rng, 8)}\n",
                "namespace": f"model.Scorer.{name}" if method else f"model.{name}",
                "type": "method" if method else "function",
                "ReferenceCode_With_Comments": _annotated_body(chain, result),
                "Missing_Mismatched_details": {
                    "string": "\nMissing or Mismatched Details:\n",
                    "Missing_details": [f"\n- {_words(rng, 6)}\n"],
                    "Mismatched_details": [],
                },
                "Arguments": {
                    "string": "\nInput Variables:\n    - x (float): the input value.\n",
                    "Arguments_list": [
                        {"name": "x", "string": "\n- x (float)\n", "dependency": None}
                    ],
                },
                "dependency": {
                    "string": "\nDependencies:\n",
                    "intra_file": _unique([d for s in chain for d in s.intra]),
                    "cross_file": _unique([d for s in chain for d in s.cross]),
                },
                "external_APIs": {
                    "string": "\nExternal APIs:\n",
                    "list": _unique([a for s in chain for a in s.apis]),
                },
                # the two released spellings of the return list, both exercised
                "Return": {
                    "Return_String": f"\nOutput Variables:\n  - {result} (float)\n",
                    ("return_list" if t % 3 == 2 else "Return_list"): [
                        {"name": result, "string": f"\n- {result} (float)\n"}
                    ],
                },
            }
            (methods if method else functions).append((name, _plain_body(chain, result), task))
            tasks.append(task)
        ori = _module_text(functions, methods)
        for task in tasks:
            task["ori_python_file"] = ori
        data.append(
            {
                "paper_id": p,
                "paper_details": {
                    "title": f"Synthetic paper {p}: {_words(rng, 4)}",
                    "url": "https://arxiv.org/abs/"
                    + (arxiv_ids[p] if p < len(arxiv_ids) else f"0001.{p:05d}"),
                },
                "repo_original_url": f"https://example.org/synthetic/repo{p}",
                "project_path": f"Benchmark/{p}-synthetic/repo{p}-main",
                "enviorment_name": f"env{p}",  # sic, as released
                "file_organization": f"\nrepo{p}-main/\n  model.py\n  run_check.py\n  utils/\n"
                "    helpers.py\n",
                "latex_code_path": f"Benchmark/{p}-synthetic/latex{p}",
                "task_details": tasks,
            }
        )
    return data


def _module_text(
    functions: list[tuple[str, list[str], dict[str, Any]]],
    methods: list[tuple[str, list[str], dict[str, Any]]],
) -> str:
    """``model.py``: helpers, class Scorer with the method tasks, then the function tasks.

    Records each task's ``signature_position`` / ``body_position`` (1-based, inclusive).
    """
    lines = MODULE_HEAD.split("\n")[:-1]
    lines += [
        "",
        "class Scorer:",
        "    def __init__(self, scale):",
        "        self.scale = scale",
        "",
        "    def _shift(self, x):",
        "        return x - 1.0",
    ]
    for name, body, task in methods:
        lines += ["", f"    def {name}(self, x):"]
        task["signature_position"] = [len(lines), len(lines)]
        start = len(lines) + 1
        lines += ["        " + b for b in body]
        task["body_position"] = [start, len(lines)]
    for name, body, task in functions:
        lines += ["", "", f"def {name}(x):"]
        task["signature_position"] = [len(lines), len(lines)]
        start = len(lines) + 1
        lines += ["    " + b for b in body]
        task["body_position"] = [start, len(lines)]
    return "\n".join(lines) + "\n"


def _latex(paper: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """``main.tex`` with an abstract, labelled sections, citations; ``refs.bib``."""
    p = paper["paper_id"]
    keys = [f"ref{p}x{i}" for i in range(3)]
    tex = [
        "\\documentclass{article}",
        "% a comment the parser drops",
        "\\begin{document}",
        f"\\title{{{paper['paper_details']['title']}}}",
        f"\\begin{{abstract}} Abstract {_words(rng, 12)} \\end{{abstract}}",
        "\\section{Introduction}\\label{sec:intro}",
        f"Intro {_words(rng, 20)} as in \\cite{{{keys[0]},{keys[1]}}}.",
        "\\section{Method}\\label{sec:method}",
        f"Method {_words(rng, 20)} following \\citet{{{keys[2]}}}.",
        "\\subsection{Scoring}\\label{sec:scoring}",
    ]
    for task in paper["task_details"]:
        tex.append(task["latex_code"])
    tex += ["\\section{Experiments}", f"Experiments {_words(rng, 20)}.", "\\end{document}", ""]
    bib = []
    for i, key in enumerate(keys):
        bib.append(
            f"@article{{{key},\n  title = {{Synthetic reference {p}-{i} {_words(rng, 3)}}},\n"
            f"  year = {{2020}},\n  eprint = {{0002.{p * 10 + i:05d}}}\n}}\n"
        )
    bib.append("@article{uncited, title={Never cited}, year={2019}}\n")
    return "\n".join(tex), "\n".join(bib)


def write_benchmark(out_dir: str | Path, data: list[dict[str, Any]], *, seed: int = 7) -> Path:
    """Write ``Data.json``, ``papers/<latex_code_path>`` and ``repos/<project_path>``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    for paper in data:
        latex_dir = out / "papers" / paper["latex_code_path"]
        latex_dir.mkdir(parents=True, exist_ok=True)
        tex, bib = _latex(paper, rng)
        (latex_dir / "main.tex").write_text(tex, encoding="utf-8")
        (latex_dir / "refs.bib").write_text(bib, encoding="utf-8")
        repo = out / "repos" / paper["project_path"]
        (repo / "utils").mkdir(parents=True, exist_ok=True)
        (repo / "utils" / "__init__.py").write_text("", encoding="utf-8")
        (repo / "utils" / "helpers.py").write_text(HELPERS, encoding="utf-8")
        (repo / "run_check.py").write_text(CHECK_SCRIPT, encoding="utf-8")
        (repo / "model.py").write_text(
            paper["task_details"][0]["ori_python_file"], encoding="utf-8"
        )
    path = out / "Data.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def write_reference_predictions(data: str | Path, out_dir: str | Path) -> dict[str, Path]:
    """Two answer files in the predictions format (``paper_id``, ``task_id``, ``code`` per
    line) for a released-format ``Data.json``: ``other-task-code`` answers each task with the
    next task's reference code (a wrong-answer floor), ``reference-code`` with its own (the
    ceiling). Imported answers to score without running the agent (the demo, parity tests)."""
    released = json.loads(Path(data).read_text(encoding="utf-8"))
    tasks = [(p["paper_id"], task) for p in released for task in p["task_details"]]
    files: dict[str, Path] = {}
    for name, shift in (("other-task-code", 1), ("reference-code", 0)):
        path = Path(out_dir) / f"{name}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for i, (paper, task) in enumerate(tasks):
                code = tasks[(i + shift) % len(tasks)][1]["ReferenceCode_With_Comments"]
                row = {"paper_id": paper, "task_id": task["task_id"], "code": code}
                fh.write(json.dumps(row) + "\n")
        files[name] = path
    return files
