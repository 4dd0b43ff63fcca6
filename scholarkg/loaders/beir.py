"""Test collections in the BEIR layout, the IR ecosystem's common exchange format.

A collection is a directory (``beir-cellar/beir`` ``GenericDataLoader``)::

    corpus.jsonl        {"_id": "d1", "title": "...", "text": "...", "metadata": {...}}
    queries.jsonl       {"_id": "q1", "text": "...", "metadata": {...}}
    qrels/<split>.tsv   query-id<TAB>corpus-id<TAB>score   (header line, then one judgement a line)

(``.gz`` versions of each file are read too.) Collections re-released by other benchmarks vary
the qrels, and all these are read: ``qrels/<split>.tsv`` (one split per file), a single
``qrels.tsv`` at the top level (one split, named ``test`` unless ``--qrels-split`` says
otherwise), graded scores (any number, ``2``, ``0.5``), with or without the header line, and
TREC's four columns ``qid 0 docid grade`` (tab- or space-separated) in either place. The load
says which split(s) it found and from which file. The graph shape is documented in
``schema/retrieval.py``. Rules:

* document ids that are DOIs or arXiv ids join papers loaded from any other source
  (``schema/ids.py``); other ids are scoped to the collection;
* ``title`` and ``text`` are stored as the Paper's ``title`` and ``abstract`` (the text BM25
  indexes is ``title + " " + text``, BEIR's own convention);
* a qrels file without a header is accepted when its first line is a judgement (a numeric
  third column), because some converted collections drop it;
* a malformed line (bad JSON, missing ``_id``, a qrels row that is not three columns with a
  numeric score) is reported with file and line number, counted and skipped
  (:class:`~scholarkg.loaders.tolerant.SkipReport`); qrels naming an unknown query or
  document are skipped by the writer and counted as skipped relationships.

Loading twice changes nothing: every node and edge is MERGEd on stable ids.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

from scholarkg.errors import InputError
from scholarkg.loaders.checkpoint import Group
from scholarkg.loaders.tolerant import (
    SkipReport,
    iter_jsonl_tolerant,
    optional_str,
    require_str,
)
from scholarkg.schema import ids
from scholarkg.schema.records import EdgeRecord, NodeRecord, Paper, Query
from scholarkg.schema.retrieval import (
    Collection,
    PaperInCollection,
    Qrel,
    QueryInCollection,
    beir_source,
    collection_id,
    doc_paper_id,
)
from scholarkg.textio import iter_lines

KIND = "beir"
QRELS_HEADER = ("query-id", "corpus-id", "score")


def find_file(directory: Path, name: str) -> Path:
    """``name`` or ``name.gz`` inside ``directory``; InputError naming both if neither exists."""
    for candidate in (directory / name, directory / f"{name}.gz"):
        if candidate.is_file():
            return candidate
    raise InputError(f"no {name} (or {name}.gz) in the collection directory", path=directory)


def qrels_files(directory: Path, *, top_level_split: str = "test") -> dict[str, Path]:
    """``{split: path}`` of ``qrels/<split>.tsv(.gz)`` and a top-level ``qrels.tsv(.gz)``.

    The top-level file is one split, ``top_level_split``; when ``qrels/`` holds that split
    too, the two are the same judgements in two places and the refusal says so. At least one
    file is required.
    """
    folder = directory / "qrels"
    found: dict[str, Path] = {}
    if folder.is_dir():
        for p in sorted(folder.iterdir()):
            name = p.name.removesuffix(".gz")
            if name.endswith((".tsv", ".txt", ".trec")) and p.is_file():
                found[name.rsplit(".", 1)[0]] = p
    for name in ("qrels.tsv", "qrels.tsv.gz", "qrels.txt", "qrels.txt.gz"):
        top = directory / name
        if top.is_file():
            if top_level_split in found:
                raise InputError(
                    f"both {top.name} and {found[top_level_split].relative_to(directory)} give "
                    f"split {top_level_split!r}; keep one, or name the top-level one with "
                    "--qrels-split",
                    path=directory,
                )
            found[top_level_split] = top
            break
    if not found:
        raise InputError(
            "no qrels: expected qrels/<split>.tsv files or a qrels.tsv at the top level",
            path=directory,
        )
    return found


def query_node_id(collection: str, qid: str) -> str:
    return ids.scoped_id("query", beir_source(collection), qid)


def read_corpus(path: Path, collection: str, report: SkipReport) -> Iterator[Group]:
    """One group per document: the Paper and its IN_COLLECTION edge (first: the Collection)."""
    coll = Collection(name=collection, kind=KIND, path=str(path.parent))
    first = True
    for lineno, obj in iter_jsonl_tolerant(path, report):
        try:
            doc_id = require_str(obj, "_id", path=path, line=lineno)
            paper_id = doc_paper_id(collection, doc_id)
            arxiv = ids.normalize_arxiv_id(doc_id)
            doi = None if arxiv else ids.normalize_doi(doc_id)
            paper = Paper(
                id=paper_id,
                title=optional_str(obj, "title"),
                abstract=optional_str(obj, "text"),
                arxiv_id=arxiv,
                doi=doi,
                source=beir_source(collection),
            )
        except InputError as err:
            report.skip_error(err, path=path, line=lineno)
            continue
        except ValueError as err:  # pydantic: a field of the wrong type, or refused text
            report.skip(path, lineno, _first_problem(err))
            continue
        records: list[NodeRecord | EdgeRecord] = [
            paper,
            PaperInCollection(start=paper.id, end=coll.id, doc_id=doc_id)
            if paper.id.startswith(f"{beir_source(collection)}:")
            else PaperInCollection(  # a shared work's node: the collection's text kept apart
                start=paper.id,
                end=coll.id,
                doc_id=doc_id,
                own_text=True,
                doc_title=paper.title,
                doc_text=paper.abstract,
            ),
        ]
        if first:
            records.insert(0, coll)
            first = False
        yield lineno, records


def read_queries(path: Path, collection: str, report: SkipReport) -> Iterator[Group]:
    """One group per query: the Query node and its IN_COLLECTION edge."""
    coll_id = collection_id(KIND, collection)
    for lineno, obj in iter_jsonl_tolerant(path, report):
        try:
            qid = require_str(obj, "_id", path=path, line=lineno)
            text = optional_str(obj, "text")
            if text is None:
                raise InputError("missing value", path=path, line=lineno, field="text")
            query = Query(qid=qid, text=text, source=beir_source(collection))
        except InputError as err:
            report.skip_error(err, path=path, line=lineno)
            continue
        except ValueError as err:  # pydantic: refused text (schema/text.py)
            report.skip(path, lineno, _first_problem(err))
            continue
        yield lineno, [query, QueryInCollection(start=query.id, end=coll_id)]


def _first_problem(err: ValueError) -> str:
    text = str(err).splitlines()
    return " ".join(text[1:3]).strip() if len(text) > 2 else text[0]


def split_qrels_line(line: str) -> list[str]:
    """The cells of a qrels line: tab-separated, else whitespace-separated (TREC files)."""
    stripped = line.rstrip("\r\n")
    cells = stripped.split("\t")
    return cells if len(cells) > 1 else stripped.split()


def read_qrels(path: Path, collection: str, split: str, report: SkipReport) -> Iterator[Group]:
    """One group per judgement line (see the module doc for the header and column rules)."""
    for lineno, line in iter_lines(path):
        cells = split_qrels_line(line)
        if lineno == 1 and tuple(c.strip().lower() for c in cells) == QRELS_HEADER:
            continue
        if len(cells) == 4:  # TREC: qid iter docid grade
            cells = [cells[0], cells[2], cells[3]]
        if len(cells) != 3:
            report.skip(
                path, lineno, f"expected 3 tab-separated columns (or TREC's 4), got {len(cells)}"
            )
            continue
        qid, doc_id, raw_score = (c.strip() for c in cells)
        if not qid or not doc_id:
            report.skip(path, lineno, "missing value", "query-id" if not qid else "corpus-id")
            continue
        try:
            score = float(raw_score)
        except ValueError:
            if lineno == 1:
                report.skip(
                    path,
                    lineno,
                    f"unrecognised header {cells!r}; expected query-id, corpus-id, score",
                    "header",
                )
            else:
                report.skip(path, lineno, f"score {raw_score!r} is not a number", "score")
            continue
        if not math.isfinite(score):
            report.skip(path, lineno, f"score {raw_score!r} is not a finite number", "score")
            continue
        yield (
            lineno,
            [
                Qrel(
                    start=query_node_id(collection, qid),
                    end=doc_paper_id(collection, doc_id),
                    score=score,
                    split=split,
                )
            ],
        )
