"""``load openalex`` throughput: a generated snapshot in OpenAlex's real layout
(``data/works/updated_date=YYYY-MM-DD/part_NNN.gz``, gzipped JSON Lines, ~20 references a
work, authorships, venue, topics, an abstract inverted index), loaded

* with ``--bulk`` (``loaders/openalex_bulk``: snapshot → GRAPH.BULK) into a new graph, and
* incrementally (identity resolution + resumable MERGE batches, what a daily update runs),

on a throwaway embedded server, printing works/s and the process's peak RSS for each. The
incremental load is the obvious alternative to the bulk path, measured in the same run (on
``--incremental-works`` works: it is ~two orders of magnitude slower).

    python benchmarks/bench_openalex.py --works 1000000 --incremental-works 20000 \\
        --snapshot-dir /tmp/openalex-snapshots
    python benchmarks/bench_openalex.py --works 20000 --backend neo4j   # managed Neo4j

Each phase runs in its own process, so peak memory is that phase's.
"""

from __future__ import annotations

import argparse
import functools
import gc
import gzip
import itertools
import json
import multiprocessing as mp
import random
import resource
import shutil
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

WORDS = [
    "graph", "citation", "model", "data", "learning", "network", "paper", "method", "result",
    "analysis", "study", "corpus", "query", "ranking", "retrieval", "benchmark", "evaluation",
    "open", "scholarly", "identity",
]  # fmt: skip


def _abstracts(rng: random.Random, n: int = 64) -> list[str]:
    """A pool of abstract_inverted_index JSON texts (generation reuses them: json.dumps of a
    fresh 120-word index per work was most of the generator's time)."""
    out = []
    for _ in range(n):
        index: dict[str, list[int]] = {}
        for pos in range(rng.randint(80, 160)):
            index.setdefault(rng.choice(WORDS), []).append(pos)
        out.append(json.dumps(index))
    return out


#: ``--text zipf``'s vocabulary: English's commonest words first (the full-text index drops
#: those it counts as stop words, as in real abstracts), then pseudo-words; a word's chance
#: falls as 1 / its rank (Zipf's law, s = 1), so a title or abstract draws mostly common words
#: and a few rare ones, and the index meets new terms all along, as on real text. 200,000
#: words under-count the rare terms of a real corpus (millions in OpenAlex): lenient, if
#: anything. The 20-word ``WORDS`` of ``--text pool`` gave every abstract the same ~20 terms,
#: which hid the full-text index's cost (docs/performance.md, round 56).
ZIPF_VOCABULARY = 200_000
COMMON_WORDS = [
    "the", "of", "and", "a", "in", "to", "is", "for", "that", "with", "on", "we", "this", "by",
    "are", "as", "an", "be", "from", "which", "our", "it", "at", "or", "can", "these", "not",
    "has", "have", "was", "model", "data", "results", "method", "based", "using", "paper",
    "approach", "show", "two", "new", "performance", "network", "learning", "analysis",
]  # fmt: skip


@functools.cache
def _zipf_vocabulary() -> tuple[list[str], list[float]]:
    """The words of ``--text zipf`` and their cumulative weights (the same in every process)."""
    rng = random.Random(2026)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = list(COMMON_WORDS)
    seen = set(words)
    while len(words) < ZIPF_VOCABULARY:
        word = "".join(rng.choices(letters, k=rng.randint(4, 11)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words, list(itertools.accumulate(1.0 / rank for rank in range(1, len(words) + 1)))


def zipf_text(w: int) -> tuple[str, str]:
    """Work ``w``'s title and abstract inverted index (JSON) under ``--text zipf``: drawn from
    a generator of its own seeded by ``w``, so a changed work keeps its abstract and the
    reference and author draws (the snapshot's other generator) are those of ``--text pool``."""
    words, weights = _zipf_vocabulary()
    rng = random.Random(w)
    title = " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(6, 14)))
    index: dict[str, list[int]] = {}
    for pos, word in enumerate(rng.choices(words, cum_weights=weights, k=rng.randint(80, 220))):
        index.setdefault(word, []).append(pos)
    return title, json.dumps(index)


def _text(rng: random.Random, abstracts: list[str], w: int, text: str) -> tuple[str, str, str]:
    """A work's title, topic and abstract JSON. ``rng`` makes the draws of ``--text pool`` in
    either mode, in the order they always came (``_base_lists_of`` replays them)."""
    title = " ".join(rng.choice(WORDS) for _ in range(8))
    topic = rng.choice(WORDS)
    abstract = rng.choice(abstracts)
    if text == "zipf":
        title, abstract = zipf_text(w)
    return title, topic, abstract


def _base_lists(rng: random.Random, w: int, works: int, refs: int) -> tuple[list[int], list[int]]:
    """Work ``w``'s references and author numbers in the base snapshot, drawn from the part's
    ``rng`` (the update generator replays it to keep them: ``_base_lists_of``)."""
    k = max(0, int(rng.gauss(refs, 5)))
    cited = [c for c in (rng.randint(1, int(works * 1.05)) for _ in range(k)) if c != w]
    return cited, [rng.randint(1, works) for _ in range(3)]


def _authors_json(w: int, authors: list[int]) -> str:
    return ",".join(
        f'{{"author_position":"{"first" if i == 0 else "middle"}","author":'
        f'{{"id":"https://openalex.org/A{a}","display_name":"Author {a}","orcid":null}},'
        f'"institutions":[{{"display_name":"Institute {w % 500}"}}],'
        '"raw_author_name":"A. Author"}'
        for i, a in enumerate(authors)
    )


def _base_parts(works: int, per_part: int = 50_000) -> list[tuple[int, int]]:
    """The (first, last) work numbers of each part ``generate`` writes."""
    n_parts = max(1, (works + per_part - 1) // per_part)
    return [(p * per_part + 1, min(works, (p + 1) * per_part)) for p in range(n_parts)]


def _base_lists_of(
    wanted: list[int], works: int, refs: int = 20, seed: int = 7
) -> dict[int, tuple[list[int], list[int]]]:
    """The base snapshot's references and authors of the works ``wanted``, replayed from the
    parts' generators as ``_write_part`` draws them (nothing of the base is read)."""
    want = set(wanted)
    out: dict[int, tuple[list[int], list[int]]] = {}
    for first, last in _base_parts(works):
        if not any(first <= w <= last for w in want):
            continue
        rng = random.Random(seed * 1_000_003 + first)
        _abstracts(rng)
        for w in range(first, last + 1):
            lists = _base_lists(rng, w, works, refs)
            for _ in range(8):  # the title's words, then the topic and the abstract
                rng.choice(WORDS)
            rng.choice(WORDS)
            rng.choice(range(64))  # the abstract: one of _abstracts' 64
            if w in want:
                out[w] = lists
    return out


def _updated_date(part: Path) -> str:
    """The ``updated_date`` of the works of a part file: its partition's day, as OpenAlex
    writes it (a time of that day)."""
    return part.parent.name.removeprefix("updated_date=") + "T06:36:47.513290"


def _write_part(args: tuple[Path, int, int, int, int, int, str]) -> None:
    path, first, last, works, refs, seed, text = args
    updated = _updated_date(path)
    rng = random.Random(seed * 1_000_003 + first)
    abstracts = _abstracts(rng)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as fh:
        for w in range(first, last + 1):
            cited_ids, author_ids = _base_lists(rng, w, works, refs)
            cited = ",".join(f'"https://openalex.org/W{c}"' for c in cited_ids)
            authors = _authors_json(w, author_ids)
            doi = f'"https://doi.org/10.5555/{w}"' if w % 4 else "null"
            title, topic, abstract = _text(rng, abstracts, w, text)
            year = 2000 + w % 25
            fh.write(
                f'{{"id":"https://openalex.org/W{w}","doi":{doi},"title":"{title}",'
                f'"display_name":"{title}","publication_year":{year},'
                f'"publication_date":"{year}-01-01","type":"article","language":"en",'
                f'"ids":{{"openalex":"https://openalex.org/W{w}","mag":"{w * 7}"}},'
                f'"updated_date":"{updated}",'
                f'"cited_by_count":{w % 100},"open_access":{{"is_oa":{str(bool(w % 2)).lower()},'
                f'"oa_status":"green","oa_url":null}},"authorships":[{authors}],'
                f'"primary_location":{{"source":{{"display_name":"Venue {w % 2000}"}}}},'
                f'"topics":[{{"display_name":"{topic}","score":0.9}}],'
                f'"referenced_works":[{cited}],"related_works":[],'
                f'"abstract_inverted_index":{abstract}}}\n'
            )


def generate(
    root: Path,
    works: int,
    *,
    refs: int = 20,
    per_part: int = 50_000,
    seed: int = 7,
    text: str = "pool",
) -> Path:
    """A synthetic snapshot: works W1..Wn over several updated_date partitions (two parts a
    day), ~``refs`` references a work of which ~5% point outside the snapshot (stubs); parts
    are written by two processes. ``text``: titles and abstracts from the 20 ``WORDS``
    (``pool``, what the other scripts' snapshots hold) or with a real text's vocabulary
    (``zipf``: ``zipf_text``); the references and authors are the same in both."""
    base = root / "data" / "works"
    jobs = [
        (base / f"updated_date=2025-{1 + part // 56 % 12:02d}-{1 + part // 2 % 28:02d}"
         / f"part_{part % 2:03d}.gz", first, last, works, refs, seed, text)
        for part, (first, last) in enumerate(_base_parts(works, per_part))
    ]  # fmt: skip
    with mp.get_context("spawn").Pool(2) as pool:
        pool.map(_write_part, jobs)
    return root


def _write_update_part(args: tuple[Path, list[int], int, int, int, int, bool, str]) -> None:
    """Works ``ids`` as a newer partition gives them: a work of the base snapshot (its id at
    most ``base``) comes back changed (new title and citation count; its references and
    authors drawn again, or with ``kept`` the base's, two references replaced), a new one
    (past ``base``) is written as ``_write_part`` writes works; references point anywhere in
    ``1..universe`` (5 % of them past the works: stubs)."""
    path, work_ids, base, universe, refs, seed, kept, text = args
    updated = _updated_date(path)
    rng = random.Random(seed * 1_000_003 + work_ids[0])
    abstracts = _abstracts(rng)
    stored = _base_lists_of([w for w in work_ids if w <= base], base) if kept else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as fh:
        for w in work_ids:
            k = max(0, int(rng.gauss(refs, 5)))
            cited = [c for c in (rng.randint(1, universe) for _ in range(k)) if c != w]
            changed = w <= base
            author_ids = [rng.randint(1, universe) for _ in range(3)]
            if changed and kept:
                cited, author_ids = list(stored[w][0]), stored[w][1]
                for j in rng.sample(range(len(cited)), min(2, len(cited))):
                    cited[j] = next(c for c in iter(lambda: rng.randint(1, universe), 0) if c != w)
            authors = _authors_json(w, author_ids)
            doi = f'"https://doi.org/10.5555/{w}"' if w % 4 else "null"
            title, topic, abstract = _text(rng, abstracts, w, text)
            title += " revised" if changed else ""
            year = 2000 + w % 25
            refs_json = ",".join(f'"https://openalex.org/W{c}"' for c in cited)
            fh.write(
                f'{{"id":"https://openalex.org/W{w}","doi":{doi},"title":"{title}",'
                f'"display_name":"{title}","publication_year":{year},'
                f'"publication_date":"{year}-01-01","type":"article","language":"en",'
                f'"ids":{{"openalex":"https://openalex.org/W{w}","mag":"{w * 7}"}},'
                f'"updated_date":"{updated}",'
                f'"cited_by_count":{w % 100 + (5 if changed else 0)},'
                f'"open_access":{{"is_oa":{str(bool(w % 2)).lower()},'
                f'"oa_status":"green","oa_url":null}},"authorships":[{authors}],'
                f'"primary_location":{{"source":{{"display_name":"Venue {w % 2000}"}}}},'
                f'"topics":[{{"display_name":"{topic}","score":0.9}}],'
                f'"referenced_works":[{refs_json}],"related_works":[],'
                f'"abstract_inverted_index":{abstract}}}\n'
            )


def generate_update(
    root: Path,
    base: int,
    *,
    new: int,
    updated: int,
    merged: int = 0,
    refs: int = 20,
    per_part: int = 50_000,
    seed: int = 11,
    kept: bool = False,
    text: str = "pool",
) -> Path:
    """A newer slice of the snapshot ``generate(…, base)`` wrote, in OpenAlex's layout:
    ``updated`` works of the base (spread evenly over it) changed, ``new`` works
    ``W{base+1}…`` added, in two ``updated_date=`` partitions newer than the base's; and
    ``merged`` works of the base retired into another in ``merged_ids/works`` (the retired
    ones are left out of the works, as OpenAlex does). A changed work's references and
    authors are drawn again (every list differs: the dearest update), or with ``kept`` are
    the base's with two references replaced (as a work's lists mostly stay between two
    snapshots). ``text`` as for ``generate``: a changed work keeps its abstract."""
    step = max(1, base // updated) if updated else 0
    changed = list(range(step, base + 1, step))[:updated] if updated else []
    retired = set(range(3, base + 1, max(1, base // merged))[:merged]) if merged else set()
    ids_ = [w for w in changed if w not in retired] + list(range(base + 1, base + new + 1))
    universe = int((base + new) * 1.05)
    works = root / "data" / "works"
    jobs = []
    for part, start in enumerate(range(0, len(ids_), per_part)):
        day = f"updated_date=2026-03-{1 + part // 2 % 28:02d}"
        chunk = ids_[start : start + per_part]
        target = works / day / f"part_{part % 2:03d}.gz"
        jobs.append((target, chunk, base, universe, refs, seed, kept, text))
    with mp.get_context("spawn").Pool(2) as pool:
        pool.map(_write_update_part, jobs)
    if retired:
        folder = root / "data" / "merged_ids" / "works"
        folder.mkdir(parents=True, exist_ok=True)
        with gzip.open(folder / "2026-03-01.csv.gz", "wt", encoding="utf-8") as fh:
            fh.write("merge_date,id,merge_into_id\n")
            for w in sorted(retired):
                fh.write(f"2026-03-01,W{w},W{w + 1}\n")
    return root


def _text_suffix(args: Any) -> str:
    """The snapshot folders' mark of ``--text zipf`` (``pool``'s keep their earlier names)."""
    return "-zipf" if args.text == "zipf" else ""


def base_snapshot(root: Path, args: Any) -> Path:
    """The base snapshot of ``args.works`` works under ``root`` (generated once, then reused)."""
    base = root / f"snap2-{args.works}{_text_suffix(args)}"
    if not (base / "done").exists():
        generate(base, args.works, text=args.text)
        (base / "done").touch()
    return base


def update_snapshot(root: Path, args: Any) -> Path:
    """The update slice ``args`` describe under ``root`` (generated once, then reused)."""
    kept = args.changed_lists == "kept"
    per_part = args.update_part_works
    upd = root / (f"upd2-{args.works}-{args.update_new}-{args.update_changed}-"
                  f"{args.update_merged}" + ("-kept" if kept else "")
                  + (f"-parts{per_part}" if per_part != 50_000 else "")
                  + _text_suffix(args))  # fmt: skip
    if not (upd / "done").exists():
        generate_update(upd, args.works, new=args.update_new, updated=args.update_changed,
                        merged=args.update_merged, kept=kept, per_part=per_part,
                        text=args.text)  # fmt: skip
        (upd / "done").touch()
    return upd


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_seconds() -> float:
    """User + system CPU of this process and its finished children (the parser workers):
    the cost that does not depend on how busy the shared machine is."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class _CollectionClock:
    """The cyclic collector's time in this process while it is on (``gc.callbacks``): the
    load's collections, which ``scholarkg.loaders.collection_pace`` paces, for either code
    of an A/B run (the callback is the benchmark's, not the loader's)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.count = 0
        self._began = 0.0

    def __enter__(self) -> _CollectionClock:
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._tick)

    def _tick(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        elif self._began:  # not the end of a collection that began before the clock did
            self.seconds += time.perf_counter() - self._began
            self.count += 1
            self._began = 0.0


def _stat_ticks(stat: str) -> tuple[str, int]:
    """A ``/proc/…/stat`` line's process (or thread) name and its user + system clock ticks."""
    fields = stat.rsplit(")", 1)[1].split()
    return stat[stat.index("(") + 1 : stat.rindex(")")], int(fields[11]) + int(fields[12])


def _server_cpu(store: Any) -> float:
    """User + system CPU seconds of the embedded server process so far (``/proc``)."""
    import os

    pid = int(store.db.connection.info("server")["process_id"])
    return _stat_ticks(Path(f"/proc/{pid}/stat").read_text())[1] / os.sysconf("SC_CLK_TCK")


def _neo4j_pid(home: Path | None = None) -> int | None:
    """The managed Neo4j of ``home`` (default ``$SCHOLARKG_HOME``; its ``server.json`` names
    the process)."""
    import json
    import os

    try:
        where = home if home is not None else Path(os.environ["SCHOLARKG_HOME"])
        return int(json.loads((where / "neo4j/server.json").read_text())["pid"])
    except (KeyError, OSError, ValueError):
        return None


def _neo4j_server_cpu() -> float | None:
    """User + system CPU seconds of the managed Neo4j so far, or ``None`` where there is none
    to read."""
    import os

    pid = _neo4j_pid()
    try:
        stat = Path(f"/proc/{pid}/stat").read_text() if pid is not None else None
    except OSError:
        return None
    return None if stat is None else _stat_ticks(stat)[1] / os.sysconf("SC_CLK_TCK")


#: the managed Neo4j's threads by what they do, from their names (``/proc/<pid>/task/*/comm``,
#: 15 characters at most): the rest is "other" (Bolt's network threads, Lucene's merges, …)
_NEO4J_THREAD_KINDS = (
    ("query threads", ("neo4j.BoltWorke",)),
    ("JIT compilers", ("C1 CompilerThre", "C2 CompilerThre")),
    ("garbage collector", ("GC Thread", "G1 ", "VM Thread")),
)


def _neo4j_thread_ticks(home: Path | None = None) -> dict[str, tuple[str, int]]:
    """Each thread of the managed Neo4j (of ``home``, as :func:`_neo4j_pid`): its id → (name,
    user + system clock ticks so far); empty where there is none to read
    (``bench_openalex_server_time.py`` reads it too)."""
    pid = _neo4j_pid(home)
    tasks = Path(f"/proc/{pid}/task")
    try:
        tids = [t.name for t in tasks.iterdir()] if pid is not None else []
    except OSError:
        return {}
    out = {}
    for tid in tids:
        try:
            out[tid] = _stat_ticks((tasks / tid / "stat").read_text())
        except OSError:  # ended meanwhile
            continue
    return out


def _neo4j_thread_split(
    before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]
) -> dict[str, float]:
    """CPU seconds of the server's threads between two :func:`_neo4j_thread_ticks`, by kind
    (a thread started meanwhile counts from zero; one that ended meanwhile is not seen)."""
    import os

    split = dict.fromkeys([kind for kind, _ in _NEO4J_THREAD_KINDS] + ["other"], 0.0)
    for tid, (name, ticks) in after.items():
        kind = next(
            (k for k, prefixes in _NEO4J_THREAD_KINDS if name.startswith(prefixes)), "other"
        )
        split[kind] += (ticks - before.get(tid, (name, 0))[1]) / os.sysconf("SC_CLK_TCK")
    return {kind: round(seconds, 1) for kind, seconds in split.items()}


def _bulk(
    snapshot: str, backend: str, out: Any, code: str | None = None, keep: bool = False
) -> None:
    if code:  # the baseline: another commit's scholarkg, extracted by _extract_code
        sys.path.insert(0, code)  # before the editable install's finder (a meta-path append)
    from scholarkg.config import load_settings
    from scholarkg.loaders.openalex import snapshot_files
    from scholarkg.loaders.openalex_bulk import bulk_load_openalex
    from scholarkg.store import open_store

    cfg = load_settings()
    works, merged = snapshot_files([Path(snapshot)])
    t0 = time.perf_counter()
    store = open_store(cfg)
    server_cpu = _server_cpu(store) if backend == "embedded" else None
    if backend == "neo4j":  # one database: the importer takes an empty one (--baseline-ref)
        store.clear()
    try:
        res = bulk_load_openalex(store, works, merged, settings=cfg)
    finally:
        store.close()
    if backend == "neo4j":
        store = open_store(cfg)
        store.apply_schema()
        store.close()
    res["wall_seconds"] = time.perf_counter() - t0
    res["peak_rss_mb"] = _peak_mb()
    res["python_cpu_seconds"] = _cpu_seconds()
    if backend == "embedded" and not keep:  # untimed: the next phase starts from empty
        store = open_store(cfg)
        if server_cpu is not None:
            # the server's main and index threads (its AOF-rewrite fork is another process)
            res["server_cpu_seconds"] = round(_server_cpu(store) - server_cpu, 1)
        store.clear()
        store.close()
    import scholarkg

    res["code"] = str(Path(scholarkg.__file__).parent)
    out.put(res)


def _extract_code(ref: str, into: Path) -> str:
    """``scholarkg/`` as of git ``ref`` under ``into`` (the baseline the bulk phase is
    compared with in the same run: same snapshot, same machine load)."""
    import subprocess

    repo = Path(__file__).resolve().parent.parent
    into.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", ref, "scholarkg"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return str(into)


def _incremental(
    snapshot: str,
    backend: str,
    out: Any,
    code: str | None = None,
    keep: bool = False,
    chunk: int | None = None,
    foresight: bool = True,
    chunk_times: bool = False,
) -> None:
    """``load openalex``'s incremental path over ``snapshot``: identity resolution and the
    writer at ``chunk`` works a chunk (``load openalex --batch-size``; ``None``: as the
    command chooses it from the graph's size, ``loaders/chunk_size.py``, or 2,000 in code
    that predates it), the parse worker reading two chunks ahead as the command's does;
    with ``foresight`` (where the code has it), the works the files describe read first and
    references to them held until their record comes, as the command does; with
    ``chunk_times``, when each chunk began resolving and how long its look-up took
    (:func:`_time_chunks`)."""
    if code:  # the baseline: another commit's scholarkg (see _bulk)
        sys.path.insert(0, code)
    from scholarkg.config import load_settings
    from scholarkg.loaders import openalex
    from scholarkg.loaders.identity import IdentityResolver
    from scholarkg.loaders.steps import Step, run_steps
    from scholarkg.store import open_store

    cfg = load_settings()
    works, _ = openalex.snapshot_files([Path(snapshot)])
    store = open_store(cfg)
    if chunk is None:  # before the clock: the command counts the Papers as the load starts
        try:
            from scholarkg.loaders import chunk_size
        except ImportError:  # a baseline before it: its own default
            chunk = 2_000
        else:
            chunk = chunk_size.chunk_for(chunk_size.stored_papers(store) if keep else 0)
    server_cpu = _server_cpu(store) if backend == "embedded" else _neo4j_server_cpu()
    threads = _neo4j_thread_ticks() if backend == "neo4j" else {}
    t0 = time.perf_counter()
    try:
        # as `load openalex` reads: a parse worker where this code has one (WorkParser),
        # started before the store's own work where this code does that (WorkParser.warm)
        parser = (
            openalex.WorkParser(1, ahead_lines=min(2 * chunk, 40_000))
            if hasattr(openalex, "WorkParser")
            else None
        )
        if parser is not None and hasattr(parser, "warm"):
            parser.warm()
        if parser is not None and hasattr(parser, "expect"):
            parser.expect(works)  # as load openalex tells it once the files are planned
        if backend == "neo4j" and not keep:  # one database: start from empty, as embedded
            store.clear()
        store.apply_schema()
        held = _foresight(works, cfg, store) if foresight else None
        resolver = (
            IdentityResolver(store, chunk=chunk, held=held)
            if held is not None
            else IdentityResolver(store, chunk=chunk)
        )
        timings: list[list[float]] = []
        if chunk_times:
            _time_chunks(resolver, t0, timings)
        read = partial(openalex.read_works, parser=parser) if parser else openalex.read_works

        def groups(f: Path) -> Any:
            return resolver.resolve(read(f))

        steps = [Step("w", f, "bench-openalex", partial(groups, f), family=False) for f in works]
        with _CollectionClock() as collections:
            summary = run_steps(store, steps, settings=cfg, batch_size=chunk)
            if held is not None:  # as `load openalex` does before its last merges
                resolver.write_held(chunk)
            resolver.finish()
        if parser is not None:
            parser.close()
        wall = time.perf_counter() - t0
        cpu = _cpu_seconds()
        load_peak = _peak_mb()  # the load's own: the fingerprint below reads the whole graph
        if server_cpu is not None:  # the server's threads: the Cypher side of the load
            now = _server_cpu(store) if backend == "embedded" else _neo4j_server_cpu()
            server_cpu = round(now - server_cpu, 1) if now is not None else None
        split = _neo4j_thread_split(threads, _neo4j_thread_ticks()) if threads else None
        counts = store.counts()
        digest = _fingerprint(store) if keep else None
    finally:
        store.close()
    import scholarkg

    out.put({
        "fingerprint": digest,
        "code": str(Path(scholarkg.__file__).parent),
        "works": sum(s.records for s in summary.stats),
        "nodes": counts.total_nodes,
        "relationships": counts.total_relationships,
        "wall_seconds": wall,
        "peak_rss_mb": _peak_mb(),
        "load_peak_rss_mb": load_peak,
        "python_cpu_seconds": cpu,
        "collection_seconds": collections.seconds,
        "collections": collections.count,
        "chunk": chunk,
        "chunk_times": timings,
        **({"server_cpu_seconds": server_cpu} if server_cpu is not None else {}),
        **({"server_threads": split} if split else {}),
    })  # fmt: skip


def _time_chunks(resolver: Any, t0: float, out: list[list[float]]) -> None:
    """Time ``resolver``'s chunks (``--chunk-times``): for each, ``[when it began resolving,
    seconds after the load began; how long its look-up took]``, the look-up's rows waited
    for included. The two methods are wrapped on this one resolver, in this process only
    (the same names in the baseline's code)."""
    resolve, lookup = resolver._resolve_chunk_now, resolver._lookup_with_finds

    def timed_resolve(*args: Any, **kwargs: Any) -> Any:
        out.append([time.perf_counter() - t0, 0.0])
        return resolve(*args, **kwargs)

    def timed_lookup(*args: Any, **kwargs: Any) -> Any:
        began = time.perf_counter()
        try:
            return lookup(*args, **kwargs)
        finally:
            out[-1][1] += time.perf_counter() - began

    resolver._resolve_chunk_now = timed_resolve
    resolver._lookup_with_finds = timed_lookup


def _fingerprint(store: Any, page: int = 20_000) -> str:
    """A digest of every node (labels, id, properties) and relationship (type, ends,
    properties) of the graph, read a range of internal ids at a time (untimed). The cyclic
    collector is off meanwhile: reading the pages' rows made ~240 full collections of up to
    1 s each (``gc.callbacks``; ~70 s a run, untimed but waited for)."""
    gc.disable()
    try:
        return _fingerprint_now(store, page)
    finally:
        gc.enable()


def _fingerprint_now(store: Any, page: int) -> str:
    import hashlib
    import logging

    logging.getLogger("neo4j").setLevel(logging.ERROR)  # id() is deprecated there: one a page
    top = store.run("MATCH (n) RETURN max(id(n)) AS m")[0]["m"] or 0
    nodes: list[str] = []
    edges: list[str] = []
    for lo in range(0, int(top) + 1, page):
        rng = {"lo": lo, "hi": lo + page}
        for n in store.run(
            "MATCH (n) WHERE id(n) >= $lo AND id(n) < $hi "
            "RETURN labels(n) AS l, n.id AS id, properties(n) AS p", rng
        ):  # fmt: skip
            nodes.append(repr((sorted(n["l"]), n["id"], sorted(n["p"].items()))))
        for e in store.run(
            "MATCH (a)-[r]->(b) WHERE id(a) >= $lo AND id(a) < $hi "
            "RETURN type(r) AS t, a.id AS a, b.id AS b, properties(r) AS p", rng
        ):  # fmt: skip
            edges.append(repr((e["t"], e["a"], e["b"], sorted(e["p"].items()))))
    h = hashlib.sha256()
    for line in (*sorted(nodes), "--", *sorted(edges)):
        h.update(line.encode())
        h.update(b"\n")
    return f"{h.hexdigest()[:16]} ({len(nodes):,} nodes, {len(edges):,} relationships)"


def _foresight(works: list[Path], cfg: Any, store: Any) -> Any:
    """``load openalex``'s foresight (``commands/load_catalogues.openalex_foresight``), its
    journal in the bench's checkpoints folder; ``None`` in code that predates it."""
    try:
        from scholarkg.loaders.coming_works import scan_coming_works
        from scholarkg.loaders.held_references import HeldReferences, journal_path
    except ImportError:
        return None
    from scholarkg.loaders import openalex
    from scholarkg.loaders.checkpoint import checkpoint_scope_prefix

    coming = scan_coming_works(works, is_page=openalex.is_page)
    journal = journal_path(cfg.checkpoints_dir, checkpoint_scope_prefix(cfg, store.graph))
    journal.unlink(missing_ok=True)  # a fresh home each run: nothing left by another
    return HeldReferences(coming, journal)


def _clear(backend: str, out: Any, code: str | None = None, keep: bool = False) -> None:
    """Drop the phase's graph (the embedded server keeps every graph in memory)."""
    from scholarkg.config import load_settings
    from scholarkg.store import open_store

    store = open_store(load_settings())
    try:
        store.clear()
    finally:
        store.close()
    out.put({})


def _update_phases(args: Any, home: Path, tmp: Path, baseline: str | None) -> None:
    """A base bulk-built from ``--works``, then the newer slice (``--update-new`` new works,
    ``--update-changed`` changed) loaded incrementally into it: works/s of that load, with
    this code and (``--baseline-ref``) the baseline's, alternated, and each run's graph
    fingerprint (they must be equal)."""
    root = args.snapshot_dir or tmp
    base = base_snapshot(root, args)
    upd = update_snapshot(root, args)
    n = args.update_new + args.update_changed
    runs = [("update", None, args.foresight != "off")]
    if args.foresight == "both":
        runs.append(("update without foresight", None, False))
    if baseline:
        runs.append((f"update @ {args.baseline_ref}", baseline, True))
    for _ in range(max(1, args.repeat)):
        for phase, code, foresight in runs:
            _fresh(args.backend, home)
            built = _run(_bulk, str(base), args.backend, keep=True)
            res = _run(
                _incremental, str(upd), args.backend, code=code, keep=True, chunk=args.chunk,
                foresight=foresight, chunk_times=args.chunk_times,
            )  # fmt: skip
            if args.backend == "embedded":
                _run(_clear, args.backend)
            print(f"{phase} ({args.backend}): {n:,} works ({args.update_new:,} new, "
                  f"{args.update_changed:,} changed) into {args.works:,} bulk-built "
                  f"({built['wall_seconds']:.0f} s), chunks of {res['chunk']:,} works")  # fmt: skip
            print(f"  {res['wall_seconds']:.1f} s = {n / res['wall_seconds']:,.0f} works/s; "
                  f"peak RSS {res['load_peak_rss_mb']:,.0f} MB during the load "
                  f"({res['peak_rss_mb']:,.0f} MB after the fingerprint read); "
                  f"{res['python_cpu_seconds']:.0f} CPU-s of Python"
                  + (f", {res['server_cpu_seconds']:.1f} CPU-s of the server"
                     if "server_cpu_seconds" in res else "")
                  + f"; {res['collections']:,} collections in the load "
                  f"({res['collection_seconds']:.1f} s)"
                  + f"; graph {res['fingerprint']}",
                  flush=True)  # fmt: skip
            if "server_threads" in res:  # where the managed Neo4j's CPU went
                print("  the server's threads: " + ", ".join(
                    f"{kind} {cpu:.1f}" for kind, cpu in res["server_threads"].items()
                ) + " CPU-s")  # fmt: skip
            if args.chunk_times:
                began = ", ".join(f"{t[0]:.2f}" for t in res["chunk_times"])
                looked = ", ".join(f"{t[1]:.2f}" for t in res["chunk_times"])
                print(f"  chunks began resolving at {began} s; their look-ups took {looked} s",
                      flush=True)  # fmt: skip


def _run(
    target: Any, *args: Any, code: str | None = None, keep: bool = False, **kwargs: Any
) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(*args, q, code, keep), kwargs=kwargs)
    p.start()
    res = q.get()
    p.join()
    return dict(res)


def _fresh(backend: str, home: Path) -> None:
    """Point the phase processes at a new, empty graph (embedded) or the managed Neo4j."""
    import os

    os.environ["SCHOLARKG_HOME"] = str(home)
    os.environ["SCHOLARKG_DATA_DIR"] = str(home / "falkordb")
    os.environ.pop("NEO4J_URI", None)  # the managed server of that home
    os.environ["SCHOLARKG_BACKEND"] = backend
    os.environ["SCHOLARKG_GRAPH"] = f"bench_{int(time.time() * 1000)}"


def cleanup(tmp: Path, home: Path | None, *, backend: str = "embedded") -> None:
    """Stop the benchmark's server under ``home`` (if any: the embedded one, or with
    ``backend="neo4j"`` the managed Neo4j the phases started there) and remove ``tmp``; a
    failure to stop is reported, never raised: it must not mask the figures printed. (Before
    2026-12-01 a Neo4j run left its JVM running with its home removed.)"""
    if home is not None:
        try:
            if backend == "neo4j":
                from scholarkg.store.neo4j.server import ManagedNeo4j

                ManagedNeo4j(home / "neo4j").stop()
            else:
                from scholarkg.store.falkordb.server import EmbeddedServer

                EmbeddedServer(home / "falkordb").stop()
        except Exception as err:  # best effort: report, don't mask the result
            print(f"could not stop the benchmark server: {err}", file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)


def add_slice_options(ap: argparse.ArgumentParser) -> None:
    """The options that shape the generated update slice (``update_snapshot`` reads them),
    shared with ``bench_openalex_server_time.py``."""
    ap.add_argument("--update-merged", type=int, default=0)
    ap.add_argument(
        "--update-part-works", type=int, default=50_000,
        help="the update's works a part file (two part files a partition): fewer make more "
             "files, and more boundaries between them (a slice's update arrives in many)",
    )  # fmt: skip
    ap.add_argument(
        "--changed-lists", choices=("redrawn", "kept"), default="redrawn",
        help="a changed work's references and authors: drawn again (every list differs, "
             "the figures before 2026-11-30) or the base's with two references replaced",
    )  # fmt: skip
    ap.add_argument(
        "--text", choices=("zipf", "pool"), default="zipf",
        help="titles and abstracts with a real text's vocabulary (Zipf's law over 200,000 "
             "words) or from 20 words (pool: the figures before 2026-12-06; the full-text "
             "index then costs next to nothing)",
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=100_000, help="works in the bulk snapshot")
    ap.add_argument("--incremental-works", type=int, default=20_000)
    ap.add_argument("--backend", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument("--skip-bulk", action="store_true")
    ap.add_argument("--skip-incremental", action="store_true")
    ap.add_argument(
        "--baseline-ref", default=None,
        help="also load the same snapshots (bulk and incremental) with scholarkg as of this "
             "git ref (e.g. the commit before a change), in the same run, for the comparison",
    )  # fmt: skip
    ap.add_argument(
        "--repeat", type=int, default=1,
        help="run each phase (and its baseline, alternated) this many times: figures taken "
             "while the machine is shared are noisy",
    )  # fmt: skip
    ap.add_argument(
        "--chunk-times", action="store_true",
        help="also print when each chunk of an update began resolving and how long its "
             "look-up took (the first chunk's start-up against the others')",
    )  # fmt: skip
    ap.add_argument(
        "--home", type=Path, default=None,
        help="SCHOLARKG_HOME to use (e.g. a running managed Neo4j's); default: a new one",
    )  # fmt: skip
    ap.add_argument(
        "--snapshot-dir",
        type=Path,
        default=None,
        help="keep generated snapshots here and reuse them (generation is slow)",
    )
    ap.add_argument(
        "--update-new", type=int, default=0,
        help="measure an update instead: bulk-build --works works, then load this many new "
             "works (plus --update-changed changed ones) incrementally into that graph",
    )  # fmt: skip
    ap.add_argument("--update-changed", type=int, default=0)
    ap.add_argument(
        "--foresight",
        choices=("on", "off", "both"),
        default="on",
        help="the update with load openalex's foresight (references to works the files "
        "describe held until their record comes), without it (stubs), or both alternated",
    )
    ap.add_argument(
        "--chunk", type=int, default=None,
        help="the update's works a chunk (identity resolution, the writer's batch; "
             "load openalex --batch-size; default: as the command chooses it)",
    )  # fmt: skip
    add_slice_options(ap)
    args = ap.parse_args(argv)
    if args.baseline_ref and args.backend == "neo4j" and not args.update_new:
        # the extracted tree has no Neo4j launcher to build; compare on the embedded store
        ap.error("--baseline-ref runs on the embedded store only")
    tmp = Path(tempfile.mkdtemp(prefix="bench-openalex-"))
    home = args.home or tmp / "home"
    try:
        if args.update_new:
            code = _extract_code(args.baseline_ref, tmp / "baseline") if args.baseline_ref else None
            _update_phases(args, home, tmp, code)
            return 0
        rows = []
        phases: list[tuple[str, int, bool, Any, str | None]] = [
            ("bulk", args.works, args.skip_bulk, _bulk, None),
            ("incremental", args.incremental_works, args.skip_incremental, _incremental, None),
        ]
        if args.baseline_ref:
            baseline = _extract_code(args.baseline_ref, tmp / "baseline")
            if not args.skip_bulk:
                phases.insert(
                    1, (f"bulk @ {args.baseline_ref}", args.works, False, _bulk, baseline)
                )
            phases.append(
                (f"incremental @ {args.baseline_ref}", args.incremental_works,
                 args.skip_incremental, _incremental, baseline)
            )  # fmt: skip
        phases = [p for _ in range(max(1, args.repeat)) for p in phases]
        for phase, n, skip, fn, code in phases:
            if skip:
                continue
            t0 = time.perf_counter()
            where = (args.snapshot_dir or tmp) / f"snap2-{n}{_text_suffix(args)}"
            snap = where if (where / "done").exists() else generate(where, n, text=args.text)
            (snap / "done").touch()
            gen = time.perf_counter() - t0
            size = sum(f.stat().st_size for f in snap.rglob("*.gz")) / 1e6
            _fresh(args.backend, home)
            res = _run(fn, str(snap), args.backend, code=code)
            rows.append((phase, n, res))
            print(f"{phase} ({args.backend}): {n:,} works, {size:,.0f} MB gzipped "
                  f"(generated in {gen:.0f} s)")  # fmt: skip
            print(f"  {res['wall_seconds']:.1f} s = {n / res['wall_seconds']:,.0f} works/s; "
                  f"peak RSS {res['peak_rss_mb']:,.0f} MB; "
                  f"{res['python_cpu_seconds']:.0f} CPU-s of Python (workers included)"
                  + (f", {res['server_cpu_seconds']:.0f} CPU-s of the server"
                     if "server_cpu_seconds" in res else ""),
                  flush=True)  # fmt: skip
            print(f"  {json.dumps(res)}", flush=True)
        return 0
    finally:
        # a server in a --home of the user's is theirs: left running
        cleanup(tmp, home if args.home is None else None, backend=args.backend)


if __name__ == "__main__":
    raise SystemExit(main())
