"""Paper collections in the arXiv Papers' Collection (APC) shape used by LEGOBench.

Three files, all documented here because the released APC has no public file spec:

``papers.jsonl`` (or ``.jsonl.gz``): one JSON object per line::

    {"id": "2101.00001", "arxiv_id": "2101.00001", "title": "...", "abstract": "...",
     "full_text": "... optional, paragraphs separated by blank lines ...",
     "date": "2021-01-04", "categories": ["cs.CL"] | "cs.CL cs.LG",
     "doi": "... optional", "authors": ["A. Name", ...] (optional)}

  ``authors`` is a list with one name per item; a single string (``"A. Name"``), or an
  item that is null, a number or empty, stops the load naming the line and the field (a
  string was read as one author per character).

  ``id`` is the identifier the edge lists use; ``arxiv_id`` defaults to ``id`` when ``id``
  looks like an arXiv id. The stored Paper id follows ``schema/ids.py`` (``arxiv:2101.00001``).

``citations.csv|tsv|jsonl``: ``start,end`` = citing, cited (ids as in ``papers.jsonl``), with
  optional ``sentence``, ``section``, ``intent`` and ``weight`` columns.

``comparisons.csv|tsv|jsonl``: ``start,end`` = the paper that reports results *against* the
  baseline ``end`` (performance-comparison network, AP-PCN), optional ``dataset``, ``task``,
  ``metric``, ``source``, ``weight``.

Full texts become ``Chunk`` nodes (``HAS_CHUNK``), so they can be searched and fed to
LGPLM-style prompts without storing megabytes on the Paper node.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders.base import author_names, build, described, iter_edges, iter_jsonl
from scholarkg.schema import ids
from scholarkg.schema.records import (
    Author,
    Authorship,
    Chunk,
    Citation,
    Comparison,
    EdgeRecord,
    HasChunk,
    NodeRecord,
    Paper,
)

_PARAGRAPH = re.compile(r"\n\s*\n")


def resolve_paper_ref(raw: str) -> str:
    """Map an id as written in an APC file to the stored Paper id (``ids.paper_ref_id``)."""
    return ids.paper_ref_id(raw)


def chunk_text(text: str, *, max_words: int = 200) -> list[str]:
    """Split full text into passages of at most ``max_words`` words along paragraph breaks.

    Short paragraphs are merged up to the limit; longer ones are cut at word boundaries.
    Markdown tables stay within one chunk where they fit, which is what extraction needs.
    """
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for para in _PARAGRAPH.split(text):
        words = para.split()
        if not words:
            continue
        if len(words) > max_words:
            if current:
                chunks.append("\n\n".join(current))
                current, count = [], 0
            for i in range(0, len(words), max_words):
                chunks.append(" ".join(words[i : i + max_words]))
            continue
        if count + len(words) > max_words and current:
            chunks.append("\n\n".join(current))
            current, count = [], 0
        current.append(para.strip())
        count += len(words)
    if current:
        chunks.append("\n\n".join(current))
    return chunks


def _categories(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        # a category that is no string (``[1, null]``) was stored as "1" and "None"
        for item in value:
            if not isinstance(item, str) or not item.strip():
                raise ValueError(f"a category is {described(item)}, not a name")
        return [v.strip() for v in value]
    raise ValueError("categories must be a list or a space-separated string")


def read_papers(
    path: str | Path, *, chunks: bool = True, max_words: int = 200
) -> Iterator[NodeRecord | EdgeRecord]:
    """Yield Paper (and Chunk/HAS_CHUNK, Author/AUTHORED_BY) records from ``papers.jsonl``."""
    for _, records in paper_groups(path, chunks=chunks, max_words=max_words):
        yield from records


def paper_groups(
    path: str | Path, *, chunks: bool = True, max_words: int = 200
) -> Iterator[tuple[int, list[NodeRecord | EdgeRecord]]]:
    """``read_papers``' records as one group per line (a source record: its Paper, authors
    and chunks), numbered from 1, each yielded as soon as its line is read.

    Why per line: grouped by where the next Paper starts, the last complete record was
    yielded only once the next line had been read, so a bad line lost the good one before
    it (``load apc`` stored one record fewer than the file held and said so)."""
    for number, (lineno, obj) in enumerate(iter_jsonl(path), start=1):
        yield number, list(_paper_records(path, lineno, obj, chunks=chunks, max_words=max_words))


def _paper_records(
    path: str | Path, lineno: int, obj: dict[str, Any], *, chunks: bool, max_words: int
) -> Iterator[NodeRecord | EdgeRecord]:
    """The records of one ``papers.jsonl`` line."""
    raw_id = obj.get("id") or obj.get("arxiv_id")
    if not raw_id:
        raise InputError("missing paper id", path=path, line=lineno, field="id")
    paper_id = resolve_paper_ref(str(raw_id))
    try:
        categories = _categories(obj.get("categories"))
    except ValueError as err:
        raise InputError(str(err), path=path, line=lineno, field="categories") from err
    arxiv = obj.get("arxiv_id") or (paper_id[6:] if paper_id.startswith("arxiv:") else None)
    data = {
        "id": paper_id,
        "arxiv_id": arxiv,
        "title": obj.get("title"),
        "abstract": obj.get("abstract"),
        "date": obj.get("date") or None,
        "year": obj.get("year"),
        "doi": obj.get("doi"),
        "categories": categories,
        "source": obj.get("source") or "apc",
    }
    paper = build(Paper, {k: v for k, v in data.items() if v is not None}, path=path, line=lineno)
    yield paper
    for pos, name in enumerate(author_names(obj.get("authors"), path=path, line=lineno)):
        author = build(Author, {"name": name}, path=path, line=lineno)
        yield author
        yield Authorship(start=paper.id, end=author.id, position=pos)
    text = obj.get("full_text")
    if chunks and isinstance(text, str) and text.strip():
        for ordinal, passage in enumerate(chunk_text(text, max_words=max_words)):
            chunk = Chunk(paper=paper.id, ordinal=ordinal, text=passage)
            yield chunk
            yield HasChunk(start=paper.id, end=chunk.id)


def _weight(obj: dict[str, Any], path: str | Path, lineno: int) -> float | None:
    if obj.get("weight") in (None, ""):
        return None
    try:
        return float(obj["weight"])
    except (TypeError, ValueError) as err:
        raise InputError("weight is not a number", path=path, line=lineno, field="weight") from err


def read_citations(path: str | Path) -> Iterator[Citation]:
    """Yield CITES records (citing → cited) from an edge list."""
    for lineno, obj in iter_edges(path):
        intents = obj.get("intent") or obj.get("intents")
        if isinstance(intents, str):
            intents = [i for i in intents.split(";") if i]
        yield build(
            Citation,
            {
                "start": resolve_paper_ref(str(obj["start"])),
                "end": resolve_paper_ref(str(obj["end"])),
                "sentence": obj.get("sentence") or None,
                "section": obj.get("section") or None,
                "intents": intents or None,
                "weight": _weight(obj, path, lineno),
            },
            path=path,
            line=lineno,
        )


def read_comparisons(path: str | Path) -> Iterator[Comparison]:
    """Yield COMPARES_WITH records (paper reporting results → baseline it compares against)."""
    for lineno, obj in iter_edges(path):
        yield build(
            Comparison,
            {
                "start": resolve_paper_ref(str(obj["start"])),
                "end": resolve_paper_ref(str(obj["end"])),
                "dataset": obj.get("dataset") or None,
                "task": obj.get("task") or None,
                "metric": obj.get("metric") or None,
                "source": obj.get("source") or None,
                "weight": _weight(obj, path, lineno),
            },
            path=path,
            line=lineno,
        )
