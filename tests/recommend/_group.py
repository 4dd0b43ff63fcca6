"""A synthetic research group's OpenAlex records (we made them up), the shape the recommender
is for: a few dozen loaded works on four topics, citing each other and many works that are
never loaded (reference stubs), the popular ones of a topic cited by most of its works.

``group_works()`` returns the records (OpenAlex API layout: ``id``, ``doi``, ``title``,
``abstract_inverted_index``, ``referenced_works``, ``related_works`` …); ``write_group``
writes them as a JSONL file ``scholarkg load openalex`` reads. ``without(works, wid)`` is the
same group loaded without one work: its record gone and no other record citing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

TOPICS = {
    "graphs": "graph citation network node edge walk pagerank embedding neighbour link",
    "parsing": "parser grammar syntax tree dependency treebank constituent sentence tagging",
    "vision": "image pixel convolution camera detection segmentation object visual scene",
    "speech": "speech acoustic phoneme audio recognition spoken waveform speaker prosody",
}
WORKS_PER_TOPIC = 12
STUBS_PER_TOPIC = 8
GENERIC = "we propose method results show approach evaluation study model data"


def work_id(topic: int, n: int) -> str:
    return f"W{100 + topic * WORKS_PER_TOPIC + n}"


def stub_id(topic: int, n: int) -> str:
    return f"W{900 + topic * STUBS_PER_TOPIC + n}"


def _inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for pos, word in enumerate(text.split()):
        index.setdefault(word, []).append(pos)
    return index


def group_works(seed: int = 7) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    works = []
    for t, (name, vocab) in enumerate(TOPICS.items()):
        words = vocab.split()
        generic = GENERIC.split()
        for n in range(WORKS_PER_TOPIC):
            title = " ".join(rng.choice(words, 4, replace=False)) + f" {name} {n}"
            abstract = " ".join([*rng.choice(words, 10), *rng.choice(generic, 5)])
            # popular stubs of the topic first: stub 0 by (nearly) all, later ones by fewer
            weights = np.asarray([1.0 / (k + 1) for k in range(STUBS_PER_TOPIC)])
            picks = rng.choice(STUBS_PER_TOPIC, size=4, replace=False, p=weights / weights.sum())
            refs = [stub_id(t, int(k)) for k in sorted(picks)]
            refs += [work_id(t, int(m)) for m in range(max(0, n - 2), n)]  # earlier works
            if n % 5 == 4:  # now and then a reference across topics
                refs.append(stub_id((t + 1) % len(TOPICS), 0))
            wid = work_id(t, n)
            works.append(
                {
                    "id": f"https://openalex.org/{wid}",
                    "doi": f"https://doi.org/10.5555/{wid.lower()}",
                    "title": title,
                    "publication_year": 2015 + n,
                    "type": "article",
                    "abstract_inverted_index": _inverted(abstract),
                    "referenced_works": [f"https://openalex.org/{r}" for r in refs],
                    "related_works": [f"https://openalex.org/{stub_id(t, 1)}"],
                    "authorships": [],
                }
            )
    return works


def without(works: list[dict[str, Any]], wid: str) -> list[dict[str, Any]]:
    """The group without work ``wid``: its record left out and every reference to it."""
    url = f"https://openalex.org/{wid}"
    out = []
    for w in works:
        if w["id"] == url:
            continue
        out.append({**w, "referenced_works": [r for r in w["referenced_works"] if r != url]})
    return out


def write_group(path: Path, works: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(w) + "\n" for w in works), encoding="utf-8")
    return path


def text_of(work: dict[str, Any]) -> str:
    """The work's title and abstract as a user would paste them."""
    positions = {p: word for word, ps in work["abstract_inverted_index"].items() for p in ps}
    return str(work["title"]) + "\n" + " ".join(positions[p] for p in sorted(positions))
