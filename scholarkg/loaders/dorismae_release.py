"""The files of the DORIS-MAE authors' GitHub repository, which is not the dataset.

The dataset (``DORIS-MAE_dataset_v1.json``: queries, corpus, annotations) is published on
Zenodo (record 10.5281/zenodo.8299749); the repository ``Real-Doris-Mae/Doris-Mae-Dataset``
carries only side files, and users point ``load dorismae`` at them. Each is recognised here by
its content (not only its name) and either loaded for what it holds or refused with a message
naming the file the task needs and where it is published:

``queries.txt``
    the 100 primary queries, each ``Query: <n>``, its text, ``Aspects:`` numbered
    ``1.``/``2.`` with lettered sub-aspects ``a.``/``b.``, then a ``=====`` rule. Loaded:
    ``Query`` nodes (the same ids as the dataset's, ``query:dorismae:<n>``), their aspects
    and sub-aspects as ``Aspect`` nodes with text, and HAS_ASPECT / HAS_SUB_ASPECT /
    SUB_ASPECT_OF. The text file numbers aspects itself, so its aspect ids are
    ``q<n>.<k>[.<letter>]`` (``source`` ``dorismae-queries-txt``), not the dataset's ids.
``subquery-2.txt``
    the texts of the two-aspect sub-queries, in the dataset's order, without the aspect pair
    that defines each: only useful beside the dataset (``--subqueries``). Refused alone.
``best_candidates.txt``
    each query's single best abstract and its averaged relevance: no ranking, no pool.
    Refused.
``benchmarking/dataset/rankings/<level>/ranking_<model>_*.pickle``
    the published rankings (removed from the repository's head; its history has them): a list,
    one ``{"index_rank": [abstract ids, best first]}`` per query. Query-level ones become
    TREC runs (qid = query index, docid = abstract id, as ``bench run dorismae`` writes), to
    score with ``scholarkg score ir`` against the qrels ``bench run dorismae --out`` writes.
    Read only through :class:`RestrictedUnpickler`.
Git LFS pointers (the ``embeddings/*.pickle`` at head) are refused: the file is elsewhere.
"""

from __future__ import annotations

import io
import pickle
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from scholarkg.errors import InputError
from scholarkg.schema.dorismae import (
    SOURCE,
    HasAspect,
    HasSubAspect,
    SubAspectOf,
    aspect_node_id,
    query_node_id,
)
from scholarkg.schema.records import Aspect, EdgeRecord, NodeRecord, Query
from scholarkg.textio import atomic_write_text, read_text

Kind = Literal[
    "dataset", "queries", "subqueries", "best_candidates", "ranking", "lfs_pointer", "unknown"
]
ZENODO = "https://doi.org/10.5281/zenodo.8299749"
DATASET_NAME = "DORIS-MAE_dataset_v1.json"
QUERIES_TXT_SOURCE = "dorismae-queries-txt"
#: what a refusal says the task needs
NEEDS = (
    f"the task needs {DATASET_NAME} (queries, corpus, annotations), published on Zenodo: {ZENODO}"
)

_QUERY = re.compile(r"^Query:\s*(\d+)\s*$")
_ASPECT = re.compile(r"^(\d+)\.\s+(.*\S)\s*$")
_SUB = re.compile(r"^\s+([a-z])\.\s+(.*\S)\s*$")
_RULE = re.compile(r"^={20,}\s*$")
_LFS = b"version https://git-lfs.github.com/spec/"


def classify(path: Path) -> Kind:
    """What a DORIS-MAE file is, from its first bytes (names get changed, contents do not)."""
    if path.suffix in (".pickle", ".pkl"):
        with path.open("rb") as fh:
            head = fh.read(64)
        return "lfs_pointer" if head.startswith(_LFS) else "ranking"
    with path.open("rb") as fh:
        head = fh.read(4096)
    if head.startswith(_LFS):
        return "lfs_pointer"
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text.startswith(("{", "[")):
        return "dataset"
    first = text.splitlines()[0] if text else ""
    if _QUERY.match(first):
        return "queries"
    if first.startswith("Subquery:"):
        return "subqueries"
    if first.startswith("Query id:"):
        return "best_candidates"
    return "unknown"


def release_files(folder: Path) -> list[tuple[Kind, Path]]:
    """The DORIS-MAE files in a checkout of the authors' repository (or any folder)."""
    found: list[tuple[Kind, Path]] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or any(p.startswith(".") for p in path.relative_to(folder).parts):
            continue
        if path.suffix in (".json", ".txt", ".pickle", ".pkl"):
            kind = classify(path)
            if kind != "unknown":
                found.append((kind, path))
    return found


def refusal(kind: Kind, path: Path) -> str:
    """Why ``path`` cannot be loaded alone and what to get instead."""
    if kind == "subqueries":
        return (
            "holds the sub-query texts in the dataset's order but not the aspect pair of each, "
            f"so it only numbers the sub-queries built from the dataset: {NEEDS}; then "
            f"'scholarkg load dorismae {DATASET_NAME} --subqueries {path.name}'"
        )
    if kind == "best_candidates":
        return (
            "lists one best abstract per query with its averaged relevance: no pool, no "
            f"ranking, no judgements to load; {NEEDS}"
        )
    if kind == "lfs_pointer":
        return (
            "is a Git LFS pointer, not the file (the repository stores it with Git LFS): "
            "run 'git lfs pull' in the checkout to get it"
        )
    return f"is not a DORIS-MAE file scholarkg knows; {NEEDS}"


# --------------------------------------------------------------------------- queries.txt


@dataclass
class TxtQuery:
    qid: int
    line: int
    text: str
    aspects: list[tuple[str, list[str]]]


def parse_queries_txt(path: Path) -> Iterator[TxtQuery]:
    """The blocks of ``queries.txt``; a malformed block is an ``InputError`` naming its line."""
    lines = read_text(path).splitlines()
    i = 0
    while i < len(lines):
        m = _QUERY.match(lines[i])
        if not m:
            if lines[i].strip() and not _RULE.match(lines[i]):
                raise InputError(
                    f"expected 'Query: <number>', found {lines[i][:60]!r}",
                    path=path,
                    line=i + 1,
                )
            i += 1
            continue
        start = i + 1
        qid = int(m.group(1))
        i += 1
        text: list[str] = []
        while i < len(lines) and lines[i].strip() != "Aspects:" and not _RULE.match(lines[i]):
            if lines[i].strip():
                text.append(lines[i].strip())
            i += 1
        if i >= len(lines) or lines[i].strip() != "Aspects:":
            raise InputError(
                f"query {qid} has no 'Aspects:' list before its closing rule",
                path=path,
                line=start,
                field="Aspects",
            )
        i += 1
        aspects: list[tuple[str, list[str]]] = []
        while i < len(lines) and not _RULE.match(lines[i]):
            line = lines[i]
            if (a := _ASPECT.match(line)) is not None:
                aspects.append((a.group(2), []))
            elif (s := _SUB.match(line)) is not None:
                if not aspects:
                    raise InputError(
                        "a lettered sub-aspect before any numbered aspect",
                        path=path,
                        line=i + 1,
                        field="Aspects",
                    )
                aspects[-1][1].append(s.group(2))
            elif line.strip():
                raise InputError(
                    f"expected '<n>. aspect' or '<letter>. sub-aspect', found {line[:60]!r}",
                    path=path,
                    line=i + 1,
                    field="Aspects",
                )
            i += 1
        if not text or not aspects:
            raise InputError(
                f"query {qid} has no text or no aspects", path=path, line=start, field="Aspects"
            )
        yield TxtQuery(qid, start, " ".join(text), aspects)


def queries_txt_groups(path: Path) -> Iterator[tuple[int, list[NodeRecord | EdgeRecord]]]:
    """One group per query block (``checkpoint.run_resumable`` stores each whole)."""
    from scholarkg.loaders.base import validating

    for q in parse_queries_txt(path):
        with validating(path, q.line):
            query = Query(id=query_node_id(q.qid), qid=str(q.qid), text=q.text, source=SOURCE)
            out: list[NodeRecord | EdgeRecord] = [query]
            for k, (text, subs) in enumerate(q.aspects, start=1):
                aid = f"q{q.qid}.{k}"
                out += [
                    Aspect(id=aspect_node_id(aid), aspect_id=aid, text=text,
                           source=QUERIES_TXT_SOURCE),
                    HasAspect(start=query.id, end=aspect_node_id(aid)),
                ]  # fmt: skip
                for j, sub in enumerate(subs):
                    sid = f"{aid}.{chr(ord('a') + j)}"
                    out += [
                        Aspect(id=aspect_node_id(sid), aspect_id=sid, text=sub,
                               source=QUERIES_TXT_SOURCE, parent=aspect_node_id(aid)),
                        HasSubAspect(start=query.id, end=aspect_node_id(sid), parent=aid),
                        SubAspectOf(start=aspect_node_id(sid), end=aspect_node_id(aid)),
                    ]  # fmt: skip
        yield q.line, out


# --------------------------------------------------------------------------- ranking pickles


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickle built-in containers and scalars, and numpy arrays; refuse every other class.

    ``pickle.load`` on a downloaded file runs whatever callable the file names (``os.system``
    included). The published rankings are lists of dicts of int lists, sometimes numpy
    arrays; those are the only globals allowed.
    """

    _ALLOWED: frozenset[tuple[str, str]] = frozenset(
        {
            ("builtins", "list"), ("builtins", "dict"), ("builtins", "set"),
            ("builtins", "frozenset"), ("builtins", "tuple"), ("builtins", "int"),
            ("builtins", "float"), ("builtins", "str"), ("builtins", "bytes"),
            ("builtins", "bool"), ("builtins", "complex"), ("collections", "OrderedDict"),
            ("numpy", "ndarray"), ("numpy", "dtype"),
            ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
            ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
        }
    )  # fmt: skip

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(
                f"refused to load {module}.{name}: only built-in types and numpy arrays are "
                "allowed in a ranking file"
            )
        return super().find_class(module, name)


def read_pickle(path: Path) -> Any:
    """A pickle through :class:`RestrictedUnpickler`; any refusal is an ``InputError``."""
    data = path.read_bytes()
    if data.startswith(_LFS):
        raise InputError(refusal("lfs_pointer", path), path=path)
    try:
        return RestrictedUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as err:
        raise InputError(
            f"not a ranking pickle scholarkg can read safely: {err}", path=path
        ) from None


def ranking_level(path: Path) -> str:
    """``query``, ``subquery_2`` or ``aspect``: the folder the published file sits in."""
    return path.parent.name


def read_ranking(path: Path) -> list[list[int]]:
    """Per query (list order = query index), its abstract ids best first."""
    data = read_pickle(path)
    if not isinstance(data, list):
        raise InputError(f"expected a list of per-query rankings, got {type(data).__name__}",
                         path=path, field="$")  # fmt: skip
    out: list[list[int]] = []
    for i, item in enumerate(data):
        ranked = item.get("index_rank") if isinstance(item, dict) else item
        try:
            if ranked is None:
                raise TypeError("no ranking")
            out.append([int(x) for x in ranked])
        except (TypeError, ValueError):
            raise InputError(
                "expected a list of abstract ids", path=path, field=f"$[{i}].index_rank"
            ) from None
    return out


def ranking_to_trec(path: Path, out: Path, *, run_name: str | None = None) -> tuple[Path, int]:
    """Write a query-level published ranking as a TREC run; returns (file, queries).

    qid = query index, docid = abstract id (``doris_abstract_id``), score = list length minus
    rank, so the order is the published one. Sub-query and aspect rankings are refused: their
    list order is that of the dataset's constructed sub-queries, which only the dataset has.
    """
    level = ranking_level(path)
    if level != "query":
        raise InputError(
            f"a {level!r}-level ranking is ordered like the dataset's own sub-query/aspect "
            f"list, which is not in the repository; only query-level rankings are converted "
            f"({NEEDS})",
            path=path,
        )
    rankings = read_ranking(path)
    name = run_name or path.stem.removeprefix("ranking_")
    lines = []
    for qid, ranked in enumerate(rankings):
        unique = list(dict.fromkeys(ranked))  # first occurrence of each abstract
        n = len(unique)
        lines += [f"{qid} Q0 {aid} {r} {n - r + 1} {name}" for r, aid in enumerate(unique, 1)]
    target = out / f"{name}.trec"
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, "\n".join(lines) + "\n")
    return target, len(rankings)
