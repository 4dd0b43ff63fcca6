"""What the load guards cost: the record sanitiser and the undo list, against going without.

Same run, same synthetic ReviewCritique-layout records (papers with a 30k-character body,
3 reviews of 25 segments each: the shape of the released file, our own text):

1. ``clean_text`` on clean and on dirty text (MB/s): the sanitiser's cost per character;
2. building the records (every field through the sanitiser) vs ``model_construct`` (no
   validation at all, the floor);
3. ``run_resumable`` into the embedded FalkorDB with the undo list (one id lookup per node
   batch, the default) vs ``undo=False`` (the writer before this change), fresh graph each.

    .venv/bin/python benchmarks/bench_load_guard.py            # 400 papers
    .venv/bin/python benchmarks/bench_load_guard.py --papers 100
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from scholarkg.loaders.checkpoint import run_resumable
from scholarkg.schema import aaar as ar
from scholarkg.schema.records import Paper, Review, ReviewSegment
from scholarkg.schema.text import clean_text
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

WORDS = [
    "zorb",
    "glim",
    "frob",
    "quux",
    "the",
    "of",
    "and",
    "a",
    "model",
    "data",
    "method",
    "result",
    "table",
    "show",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n // 5))


def _raw(rng: random.Random, papers: int) -> list[dict]:
    out = []
    for i in range(papers):
        out.append({
            "title": f"Synthetic paper {i}",
            "body": _text(rng, 30_000),
            "reviews": [[_text(rng, 200) for _ in range(25)] for _ in range(3)],
        })  # fmt: skip
    return out


def _records(raw: list[dict], *, construct: bool) -> list[tuple[int, list]]:
    mk = (
        (lambda cls, **kw: cls.model_construct(**kw))
        if construct
        else (lambda cls, **kw: cls(**kw))
    )
    groups = []
    for i, p in enumerate(raw, start=1):
        paper = Paper(title=p["title"])  # the id rule needs validation either way
        recs: list = [paper]
        body = mk(ar.Section, id=f"{paper.id}/section/body/0", paper=paper.id, ordinal=0,
                  text=p["body"], kind="body", level=1)  # fmt: skip
        recs += [body, ar.HasSection(start=paper.id, end=body.id, ordinal=0)]
        for r, segs in enumerate(p["reviews"]):
            rev = Review(paper=paper.id, reviewer=f"r{r}", source="bench")
            recs += [rev, ar.Reviews(start=rev.id, end=paper.id)]
            for k, seg in enumerate(segs, start=1):
                s = mk(ReviewSegment, id=f"{rev.id}/seg/{k}", review=rev.id, ordinal=k, text=seg)
                recs += [s, ar.HasSegment(start=rev.id, end=s.id, ordinal=k)]
        groups.append((i, recs))
    return groups


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--papers", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(7)
    raw = _raw(rng, args.papers)

    clean = _text(rng, 5_000_000)
    dirty = clean.replace(" the ", " the\x00\r\n", 2000)
    for name, text in (("clean", clean), ("dirty", dirty)):
        t = time.perf_counter()
        clean_text(text)
        dt = time.perf_counter() - t
        print(f"clean_text on {name} text: {len(text) / dt / 1e6:,.0f} M chars/s")

    timings = {}
    for construct in (True, False):
        t = time.perf_counter()
        groups = _records(raw, construct=construct)
        timings[construct] = time.perf_counter() - t
    n = sum(len(g) for _, g in groups)
    print(f"build {n:,} records: sanitised {timings[False]:.2f} s, model_construct "
          f"(no validation) {timings[True]:.2f} s")  # fmt: skip

    with tempfile.TemporaryDirectory() as tmp, EmbeddedServer(Path(tmp), persistent=False) as srv:
        times: dict[bool, list[float]] = {False: [], True: []}
        for undo in (False, True) * args.repeats:  # alternated: the machine's load drifts
            store = FalkorDBStore(srv.connect(), f"guard_{undo}")
            store.clear()
            t = time.perf_counter()
            run_resumable(store, iter(groups), source="bench", batch_size=50, undo=undo)
            times[undo].append(time.perf_counter() - t)
            store.clear()
            store.close()
        for undo in (False, True):
            med = statistics.median(times[undo])
            runs = ", ".join(f"{x:.2f}" for x in times[undo])
            print(f"run_resumable, undo list {'on ' if undo else 'off'}: median {med:.2f} s "
                  f"({n / med:,.0f} records/s; runs {runs})")  # fmt: skip


if __name__ == "__main__":
    main()
