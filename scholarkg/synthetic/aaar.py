"""Synthetic AAAR-1.0 and ReviewCritique data in the released layouts (made-up words only).

Why: the released data may not be redistributed (AAAR asks not to train on it; ReviewCritique
is under a non-AI licence), yet loaders, tasks and benchmarks must run on files in exactly
those layouts. Everything here is generated from a seeded RNG over an invented vocabulary:

* ``Equation_Inference/equation.json`` -- items with and without ``options_list``;
* ``Experiment_Design/<arxiv id>/data_text.json`` (+ ``images/<id>-Figure1.png``);
* ``Paper_Weakness/<openreview id>/data_text.json`` (+ figure/table PNGs; one reviewer list
  empty now and then, as released);
* ``ReviewCritique.jsonl`` with bare ``NaN`` tokens;
* result folders as the released scripts write them (``predicton`` key, sic).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.loaders.aaar import EXP_KEY, WHY_KEY

SYLLABLES = ("ka", "lo", "mi", "ren", "tu", "vo", "zi", "po", "ne", "sha", "dri", "qua", "fel")
#: a tiny 1x1 PNG (the loader records file names only)
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


def sentence(rng: random.Random, n: int | None = None) -> str:
    words = [_word(rng) for _ in range(n or rng.randint(6, 14))]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, n_words: int) -> str:
    out: list[str] = []
    while sum(len(s.split()) for s in out) < n_words:
        out.append(sentence(rng))
    return " ".join(out)


@dataclass
class SyntheticAaar:
    """What :func:`write_synthetic` wrote (paths, and the gold for checking runs)."""

    root: Path
    eqinfer: Path
    expdesign: Path
    weakness: Path
    reviewcritique: Path
    expdesign_ids: list[str] = field(default_factory=list)
    weakness_ids: list[str] = field(default_factory=list)
    weakness_gold: dict[str, list[list[str]]] = field(default_factory=dict)


def _eq(rng: random.Random) -> str:
    a, b = rng.sample("xyzabcuvw", 2)
    return f"{a}_{{{rng.randint(1, 9)}}} = \\frac{{{b}}}{{{rng.randint(2, 9)}}} + \\sum_i {a}_i"


def eqinfer_items(rng: random.Random, n: int, words: int = 60) -> list[dict[str, Any]]:
    items = []
    for i in range(n):
        options = [_eq(rng) for _ in range(4)]
        answer = "ABCD"[i % 4]
        text = ";\n".join(f"({letter}). `{o}`" for letter, o in zip("ABCD", options, strict=True))
        item: dict[str, Any] = {
            "context_before": paragraph(rng, words),
            "context_after": paragraph(rng, words),
            "options": text,
            "answer": answer,
        }
        if i % 2 == 0:
            item["options_list"] = options
        items.append(item)
    return items


def write_synthetic(
    root: str | Path,
    *,
    n_eqinfer: int = 8,
    n_expdesign: int = 4,
    n_weakness: int = 5,
    n_reviewcritique: int = 3,
    paper_words: int = 400,
    seed: int = 7,
    expdesign_ids: Sequence[str] = (),
) -> SyntheticAaar:
    """Write every layout under ``root`` (created); deterministic for a seed.

    ``expdesign_ids``: arXiv ids for the first ExpDesign papers (in order; the rest keep
    ``2401.1xxxx``), so another corpus's papers meet these under the id rules (the demo)."""
    rng = random.Random(seed)
    root = Path(root)
    eq_dir = root / "Equation_Inference"
    eq_dir.mkdir(parents=True, exist_ok=True)
    eq_file = eq_dir / "equation.json"
    eq_file.write_text(json.dumps(eqinfer_items(rng, n_eqinfer), indent=1))

    out = SyntheticAaar(root, eq_file, root / "Experiment_Design", root / "Paper_Weakness",
                        root / "ReviewCritique.jsonl")  # fmt: skip
    for k in range(n_expdesign):
        pid = expdesign_ids[k] if k < len(expdesign_ids) else f"2401.{10000 + k:05d}"
        folder = out.expdesign / pid
        (folder / "images").mkdir(parents=True, exist_ok=True)
        (folder / "images" / f"{pid}-Figure1.png").write_bytes(PNG)
        n_exp = rng.randint(2, 5)
        lines = [f"\\section{{{_word(rng)}}}\n"] + [
            paragraph(rng, 40) + "\n" for _ in range(max(1, paper_words // 40))
        ]
        expdesign: dict[str, Any] = {
            "id": pid,
            "input": lines,
            "output": {
                EXP_KEY: [f"{i + 1}. {sentence(rng)}" for i in range(n_exp)],
                WHY_KEY: [f"{i + 1}. {sentence(rng)}" for i in range(n_exp)],
            },
        }
        (folder / "data_text.json").write_text(json.dumps(expdesign, indent=1))
        out.expdesign_ids.append(pid)

    for k in range(n_weakness):
        pid = f"Syn{k:04d}xQ"
        folder = out.weakness / pid
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{pid}-Figure1.png").write_bytes(PNG)
        (folder / f"{pid}-Table1.png").write_bytes(PNG)
        reviewers = [[f"{i + 1}. {sentence(rng)}" for i in range(rng.randint(1, 4))]
                     for _ in range(rng.randint(2, 4))]  # fmt: skip
        if k % 3 == 2:
            reviewers.append([])  # an empty reviewer list, as released
        sections = [{"heading": f"{j + 1} {_word(rng).upper()}",
                     "text": paragraph(rng, paper_words // 4)} for j in range(4)]  # fmt: skip
        weakness: dict[str, Any] = {
            "ID": pid,
            "input": {"title": f"{_word(rng).capitalize()} {_word(rng)} {k}",
                      "abstractText": paragraph(rng, 40), "sections": sections},
            "output": reviewers,
        }  # fmt: skip
        if k == n_weakness - 1:  # the old demo keys
            weakness["Conferece"] = "ICLR_2023"
            weakness["review_num"] = len(reviewers)
            weakness["item_num"] = [len(r) for r in reviewers]
        else:
            weakness["track"] = "ICLR_2023"
        (folder / "data_text.json").write_text(json.dumps(weakness, indent=1))
        out.weakness_ids.append(pid)
        out.weakness_gold[pid] = reviewers

    with out.reviewcritique.open("w") as fh:
        for k in range(n_reviewcritique):
            paper: dict[str, Any] = {
                "decision": rng.choice(["Accept", "Reject"]),
                "title": f"Critique {_word(rng)} {k}",
                "body_text": paragraph(rng, paper_words),
            }
            for r in range(rng.randint(1, 3)):
                segs = []
                for _ in range(rng.randint(3, 6)):
                    bad = rng.random() < 0.3
                    segs.append({
                        "segment_text": sentence(rng),
                        "topic_class_1": float("nan"),
                        "topic_class_2": _word(rng) if rng.random() < 0.5 else float("nan"),
                        "reliability": "No" if bad else "Yes",
                        "explanation": sentence(rng) if bad else float("nan"),
                        "error_type": rng.choice(["Misunderstanding", "misunderstanding",
                                                  "Vague"]) if bad else float("nan"),
                    })  # fmt: skip
                paper[f"review#{r + 1}"] = {
                    "review": segs,
                    "score": {"Recommendation": f" {rng.randint(1, 5)}: {_word(rng)}"},
                }
            fh.write(json.dumps(paper) + "\n")  # json writes bare NaN, as released
    return out


def write_expdesign_results(
    run_dir: str | Path,
    predictions: dict[str, tuple[list[str], list[str]]],
    *,
    gold: dict[str, tuple[list[str], list[str]]],
    oracle: bool = True,
) -> Path:
    """``<run_dir>/<id>/eval_results.json`` files as the released ExpDesign script writes."""
    run_dir = Path(run_dir)
    for pid, (exps, whys) in predictions.items():
        folder = run_dir / pid
        folder.mkdir(parents=True, exist_ok=True)
        g_exp, g_why = gold[pid]
        data = {
            "id": pid,
            "output": {EXP_KEY: g_exp, WHY_KEY: g_why},
            "predicton": {EXP_KEY: exps, WHY_KEY: whys},
            "oracle": oracle,
        }
        (folder / "eval_results.json").write_text(json.dumps(data, indent=1))
    return run_dir


def write_weakness_results(
    path: str | Path, predictions: dict[str, list[str]], gold: dict[str, list[list[str]]]
) -> Path:
    """``<run>/<window>/eval_results.json``: a list of ``{id, predicton, output}`` (sic)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"id": pid, "predicton": items, "output": gold[pid]}
            for pid, items in predictions.items()]  # fmt: skip
    path.write_text(json.dumps(rows, indent=1))
    return path
