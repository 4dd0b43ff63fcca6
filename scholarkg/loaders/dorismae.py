"""Stream the released DORIS-MAE JSON (v1; v0's string ids too) into graph records.

The v1 file is one JSON object of several hundred MB (the released
``Real-Doris-Mae/Doris-Mae-Dataset`` files)::

    {"Query": [...], "Corpus": [...], "Annotation": [...], "aspect2aspect_id": {...},
     "aspect_id2aspect": {...}, "Test_set": [...]}

``json.load`` would hold all of it (several GB of Python objects), so we read it with
**ijson** (yajl2 C backend, PyPI wheels): one pass over the parse events, each list item
built alone (``ijson.ObjectBuilder``) and dropped after its records are yielded. Memory
stays bounded by what the load must remember anyway:

* abstract id -> Paper id (one short string per corpus abstract), because queries,
  annotations and citations name abstracts by their list index;
* citation pairs as two ``array('l')`` columns until every Paper exists (a citation list
  may point *forward* in the corpus);
* the ``Query`` list (100 small objects) while it waits for the corpus, since the released
  file puts ``Query`` first;
* one ``(aspect, abstract)`` pair per annotation, to count duplicates.

Records the sheet says to tolerate are counted in :class:`DorisLoadReport` (score -1,
duplicate annotations, empty sub-aspect lists, ids given as strings); everything else that
does not fit the schema is an :class:`InputError` naming the JSON path
(``$.Query[3].candidate_pool[5]``). Paper ids follow ``schema/ids.py``: ``arxiv:<id>``
from the arXiv URL, else ``s2:<corpus id>`` when ``ss_id`` is numeric, else the title rule.
"""

from __future__ import annotations

import logging
import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, BinaryIO

from scholarkg.errors import InputError
from scholarkg.schema import ids
from scholarkg.schema.dorismae import (
    SOURCE,
    DerivedFrom,
    DorisPaper,
    Expresses,
    HasAspect,
    HasCandidate,
    HasSentence,
    HasSubAspect,
    Sentence,
    SubAspectOf,
    SubQuery,
    UsesAspect,
    aspect_node_id,
    query_node_id,
)
from scholarkg.schema.records import Aspect, Citation, EdgeRecord, Judgement, NodeRecord, Query
from scholarkg.textio import refuse_markup

log = logging.getLogger(__name__)

AnyRecord = NodeRecord | EdgeRecord
#: ``progress(bytes_read, bytes_total)``
ByteProgress = Callable[[int, int], None]
SECTIONS = ("Query", "Corpus", "Annotation", "aspect2aspect_id", "aspect_id2aspect", "Test_set")
_LIST_SECTIONS = frozenset({"Query", "Corpus", "Annotation", "Test_set"})
_SUBQUERY_RULE = re.compile(r"^={70,}\s*$")


#: The 60-query "test" split (query ids = list indices of the v1 ``Query`` list).
TEST_SPLIT_QIDS: tuple[str, ...] = tuple(
    str(q) for q in (1, 8, 10, 16, 23, 28, 33, 37, 44, 46, *range(50, 100))
)

# The annotation verdicts (the dataset's grading rule, applied to stored GPT responses).
_VERDICTS = {"CONCUR": 2, "AGREE": 1, "DISPUTE": 1, "DISAGREE": 0}
_VERDICT_RE = re.compile(r"\b(CONCUR|AGREE|DISPUTE|DISAGREE)\b")


def grade_from_response(text: str | None) -> int:
    """Grade of an annotator's verdict: CONCUR 2, AGREE/DISPUTE 1, DISAGREE 0, else -1.

    The verdict is the upper-case keyword the response ends on; a response naming no
    keyword, or several *different* ones, is unparseable (-1), as in the dataset's scores.
    Word boundaries matter: ``DISAGREE`` must not also count as ``AGREE``.
    """
    if not text:
        return -1
    found = set(_VERDICT_RE.findall(text))
    if len(found) != 1:
        return -1
    return _VERDICTS[found.pop()]


@dataclass
class DorisLoadReport:
    """What a load read, and the tolerated oddities it counted (printed in the summary)."""

    counts: Counter[str] = field(default_factory=Counter)
    tolerated: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def summary_lines(self) -> list[str]:
        lines = [f"read: {', '.join(f'{k} {v:,}' for k, v in sorted(self.counts.items()))}"]
        if self.tolerated:
            shown = ", ".join(f"{k} {v:,}" for k, v in sorted(self.tolerated.items()))
            lines.append(f"tolerated: {shown}")
        return lines + self.notes


class _CountingReader:
    """A binary file wrapper that reports bytes read (the progress bar's position) and keeps
    the last two buffers, so a parse error can be placed at its line and column instead of
    "near byte 65,536" (the end of ijson's read buffer)."""

    def __init__(self, fh: BinaryIO, total: int, progress: ByteProgress | None) -> None:
        self.fh, self.total, self.progress, self.done = fh, total, progress, 0
        self.window = b""
        self.window_start = 0

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        keep = self.window[-len(data) :] if data and len(self.window) > len(data) else self.window
        self.window_start = self.done - len(keep)
        self.window = keep + data
        self.done += len(data)
        if self.progress is not None:
            self.progress(self.done, self.total)
        return data


_BLANKS = bytes.maketrans(b"\n\r\t", b"   ")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _line_col(path: Path, offset: int) -> tuple[int, int]:
    """1-based line and column (in bytes) of byte ``offset``: one streaming newline count."""
    line, last_nl, pos = 1, -1, 0
    with path.open("rb") as fh:
        while pos < offset:
            chunk = fh.read(min(1 << 20, offset - pos))
            if not chunk:
                break
            count = chunk.count(b"\n")
            if count:
                line += count
                last_nl = pos + chunk.rfind(b"\n")
            pos += len(chunk)
    return line, offset - last_nl


def _error_offset(err: Exception, fh: _CountingReader) -> int | None:
    """Where in the file the parser stopped, from the context yajl quotes in its message
    (the line after the message, and ``(right here) ------^`` under the offending byte)."""
    if isinstance(err, UnicodeDecodeError):  # a lone surrogate escape yajl could not decode
        hit = _SURROGATE_ESCAPE.search(fh.window)
        return fh.window_start + hit.start() if hit else None
    text = str(err)
    if text.startswith(("b'", 'b"')):  # lexical errors arrive as a bytes repr
        text = text[2:-1].encode("latin-1", "replace").decode("unicode_escape", "replace")
    lines = text.split("\n")
    mark = next((i for i, ln in enumerate(lines) if "(right here)" in ln and "^" in ln), None)
    if not mark:
        return None
    ctx_line = lines[mark - 1]
    ctx = ctx_line.lstrip()
    within = lines[mark].index("^") - (len(ctx_line) - len(ctx))
    # yajl prints line breaks and tabs of the context as spaces
    flat = fh.window.translate(_BLANKS)
    found = flat.find(ctx.encode("latin-1", "replace"))
    if found < 0 or not ctx:
        return None
    # yajl's caret sits just past the byte it could not take
    return fh.window_start + found + max(0, min(within - 1, len(ctx)))


def iter_sections(fh: Any) -> Iterator[tuple[str, int | None, Any]]:
    """``(section, index, value)`` per list item (or ``(section, None, dict)`` for maps).

    Top-level keys may come in any order; unknown keys are yielded as ``(key, None, None)``
    after being skipped (not built). One pass over ijson's parse events.
    """
    import ijson

    events = ijson.parse(fh, use_float=True)
    try:
        prefix, event, value = next(events)
    except StopIteration:
        raise InputError("empty file") from None
    if event != "start_map":
        raise InputError("expected a JSON object at the top level ($)", field="$")
    builder: Any = None
    depth = 0
    section: str | None = None
    index = 0
    for prefix, event, value in events:
        if builder is not None:
            builder.event(event, value)
            if event in ("start_map", "start_array"):
                depth += 1
            elif event in ("end_map", "end_array"):
                depth -= 1
            if depth == 0:
                yield section or "", (index if section in _LIST_SECTIONS else None), builder.value
                builder = None
                index += 1
            continue
        if prefix == "" and event == "map_key":
            section, index = value, 0
            continue
        if prefix == "" and event == "end_map":
            return
        if section is None:
            continue
        if prefix == section:
            if section in _LIST_SECTIONS and event == "start_array":
                continue
            if section in _LIST_SECTIONS and event == "end_array":
                yield section, -1, None  # end of the list
                continue
            if section in _LIST_SECTIONS:
                raise InputError(
                    f"expected a list, found {event.replace('start_', '')}", field=f"$.{section}"
                )
            if event in ("start_map", "start_array"):
                builder, depth = ijson.ObjectBuilder(), 1
                builder.event(event, value)
                continue
            yield section, None, value  # a scalar top-level value
            continue
        if section in _LIST_SECTIONS and prefix == f"{section}.item":
            if event in ("start_map", "start_array"):
                builder, depth = ijson.ObjectBuilder(), 1
                builder.event(event, value)
            else:
                yield section, index, value
                index += 1


def _as_int(value: Any, where: str, report: DorisLoadReport) -> int:
    """An abstract id: int, or a numeric string (counted as tolerated)."""
    if isinstance(value, bool):
        raise InputError(f"expected an integer id, got {value!r}", field=where)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        report.tolerated["ids as strings"] += 1
        return int(value.strip())
    raise InputError(f"expected an integer id, got {value!r}", field=where)


def _as_str_id(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str) or str(value).strip() == "":
        raise InputError(f"expected an id (string or integer), got {value!r}", field=where)
    return str(value).strip()


def _need(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, Mapping):
        raise InputError(f"expected an object, got {type(obj).__name__}", field=where)
    if key not in obj:
        raise InputError("missing field", field=f"{where}.{key}")
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise InputError(f"expected {names}, got {type(value).__name__}", field=f"{where}.{key}")
    return value


def paper_record(obj: Any, index: int, report: DorisLoadReport) -> DorisPaper:
    """The Paper of ``Corpus[index]`` (id from the arXiv URL, else numeric ss_id, else title)."""
    where = f"$.Corpus[{index}]"
    text = _need(obj, "original_abstract", str, where)
    declared = obj.get("abstract_id", index)
    aid = _as_int(declared, f"{where}.abstract_id", report)
    if aid != index:
        raise InputError(
            f"abstract_id {aid} differs from the list index {index} (ids are list indices)",
            field=f"{where}.abstract_id",
        )
    url = obj.get("url") or ""
    arxiv = ids.normalize_arxiv_id(str(url)) if url else None
    ss_id = obj.get("ss_id")
    ss = str(ss_id).strip() if ss_id not in (None, "") else None
    corpus_id = int(ss) if ss is not None and ss.isdigit() else None
    title = obj.get("title") or None
    try:
        pid = ids.paper_id(arxiv_id=arxiv, corpus_id=corpus_id, title=title)
    except ValueError as err:
        raise InputError(
            f"abstract {index} has no arXiv URL, numeric ss_id or title to identify it",
            field=f"{where}.url",
        ) from err
    cats = obj.get("categories")
    return DorisPaper(
        id=pid,
        arxiv_id=arxiv,
        corpus_id=corpus_id,
        title=title,
        abstract=text,
        doris_abstract=text,  # the benchmark's document, whatever overwrites `abstract`
        url=url or None,
        categories=[str(c) for c in cats] if isinstance(cats, list) else None,
        primary_category=obj.get("primary_category") or None,
        ss_id=ss,
        doris_abstract_id=aid,
        source=SOURCE,
    )


@dataclass
class _QueryParts:
    """What later steps need of a parsed query: its units and sentences per aspect."""

    qid: int
    aspects: dict[str, list[str]]
    aspect_sents: dict[str, list[str]]
    sent_aspects: dict[str, list[str]]


def read_subquery_file(path: str | Path) -> dict[str, int]:
    """``subquery-2.txt`` blocks -> ``{normalised text: upstream number}``."""
    out: dict[str, int] = {}
    number: int | None = None
    lines: list[str] = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("Subquery:"):
            try:
                number = int(line.split(":", 1)[1])
            except ValueError:
                raise InputError("bad block header", path=path, line=lineno) from None
            lines = []
        elif _SUBQUERY_RULE.match(line):
            if number is None:
                raise InputError(
                    "closing rule before any 'Subquery:' header", path=path, line=lineno
                )
            out[" ".join(" ".join(lines).split())] = number
            number = None
        elif number is not None and line.strip():
            lines.append(line.strip())
    return out


class DorisReader:
    """One streaming read of a DORIS-MAE file into records (see the module docstring)."""

    def __init__(
        self,
        path: str | Path,
        *,
        report: DorisLoadReport | None = None,
        subqueries: str | Path | None = None,
        progress: ByteProgress | None = None,
    ) -> None:
        self.path = Path(path)
        self.report = report or DorisLoadReport()
        self.progress = progress
        self.upstream_subqueries = read_subquery_file(subqueries) if subqueries else None
        self._matched_subqueries: set[int] = set()
        self.paper_ids: list[str] = []
        self._seen_papers: set[str] = set()
        self.corpus_done = False
        self._pending_queries: list[tuple[int, Any]] = []
        self._pending_annotations: list[tuple[int, Any]] = []
        self._seen_pairs: set[tuple[str, int]] = set()
        self._cite_src = array("l")
        self._cite_dst = array("l")
        #: the JSON path of the last item read (error messages say what came before)
        self._last = ""

    # ------------------------------------------------------------------ public
    def records(self) -> Iterator[AnyRecord]:
        """Every record of the file, nodes before the edges that need them."""
        total = self.path.stat().st_size
        with self.path.open("rb") as raw:
            fh = _CountingReader(raw, total, self.progress)
            try:
                yield from self._dispatch(iter_sections(fh))
            except InputError as err:
                if err.path is None:
                    raise InputError(err.message, path=self.path, field=err.field) from err
                raise
            except Exception as err:  # ijson's own parse errors carry no path
                if type(err).__name__ in ("IncompleteJSONError", "JSONError") or isinstance(
                    err, UnicodeDecodeError
                ):
                    if not self._last:  # at the start: an XML or HTML file is said to be one
                        refuse_markup(self.path)
                    raise self._parse_error(err, fh) from err
                raise
        if not self.corpus_done:
            raise InputError("no 'Corpus' list in the file", path=self.path, field="$.Corpus")
        if self.upstream_subqueries is not None:
            unmatched = len(self.upstream_subqueries) - len(self._matched_subqueries)
            self.report.counts["subquery file blocks"] = len(self.upstream_subqueries)
            if unmatched:
                self.report.tolerated["subquery file blocks matching no constructed one"] = (
                    unmatched
                )

    def _parse_error(self, err: Exception, fh: _CountingReader) -> InputError:
        """The ``InputError`` for a parse error: its line and column, and the last item read."""
        if isinstance(err, UnicodeDecodeError):
            what = (
                "a string with a lone UTF-16 surrogate escape (\\ud800-\\udfff) or bytes that "
                "are not UTF-8"
            )
        else:
            first = str(err).removeprefix("b'").removeprefix('b"')
            first = " ".join(first.split("\\n")[0].split("\n")[0].split())
            what = f"invalid JSON ({first})"
        offset = _error_offset(err, fh)
        after = f" (after {self._last})" if self._last else ""
        if offset is None:
            return InputError(
                f"{what} in the bytes {fh.window_start:,}-{fh.done:,}{after}", path=self.path
            )
        line, col = _line_col(self.path, offset)
        return InputError(f"{what} at column {col:,}{after}", path=self.path, line=line)

    # ------------------------------------------------------------------ dispatch
    def _dispatch(self, sections: Iterator[tuple[str, int | None, Any]]) -> Iterator[AnyRecord]:
        for section, index, value in sections:
            self._last = f"$.{section}" + (f"[{index}]" if index is not None and index >= 0 else "")
            if section == "Query":
                if index == -1:
                    continue
                assert index is not None
                if self.corpus_done:
                    yield from self._query(index, value)
                else:
                    self._pending_queries.append((index, value))
            elif section == "Corpus":
                if index == -1:
                    yield from self._finish_corpus()
                    continue
                assert index is not None
                paper = paper_record(value, index, self.report)
                if paper.id in self._seen_papers:
                    # two abstracts of the corpus resolve to one paper: keep them apart, since
                    # run files and pools name abstracts, and one node cannot carry two ids
                    self.report.tolerated["abstracts sharing a paper id (kept apart)"] += 1
                    paper = paper.model_copy(update={"id": ids.scoped_id("paper", SOURCE, index)})
                self._seen_papers.add(paper.id)
                self.paper_ids.append(paper.id)
                self.report.counts["abstracts"] += 1
                yield paper
                self._collect_citations(value, index)
            elif section == "Annotation":
                if index == -1:
                    continue
                assert index is not None
                if self.corpus_done:
                    yield from self._annotation(index, value)
                else:
                    self._pending_annotations.append((index, value))
            elif section == "aspect_id2aspect":
                yield from self._aspect_texts(value)
            elif section == "aspect2aspect_id":
                if not isinstance(value, Mapping):
                    raise InputError("expected an object", field="$.aspect2aspect_id")
            elif section == "Test_set":
                if index == -1:
                    continue
                assert index is not None
                if not self.corpus_done:
                    raise InputError(
                        "Test_set before Corpus is not supported", field=f"$.Test_set[{index}]"
                    )
                yield from self._human(index, value)
            else:
                self.report.tolerated[f"unknown top-level key {section!r}"] += 1

    def _finish_corpus(self) -> Iterator[AnyRecord]:
        self.corpus_done = True
        n = len(self.paper_ids)
        unknown = 0
        for s, d in zip(self._cite_src, self._cite_dst, strict=True):
            if not 0 <= d < n:
                unknown += 1
                continue
            yield Citation(start=self.paper_ids[s], end=self.paper_ids[d])
        self.report.counts["citations"] += len(self._cite_src) - unknown
        if unknown:
            self.report.tolerated["citations to ids outside the corpus (skipped)"] += unknown
        self._cite_src, self._cite_dst = array("l"), array("l")
        for index, value in self._pending_queries:
            yield from self._query(index, value)
        for index, value in self._pending_annotations:
            yield from self._annotation(index, value)
        self._pending_queries, self._pending_annotations = [], []

    def _collect_citations(self, obj: Mapping[str, Any], index: int) -> None:
        cited = obj.get("outgoing_citations") or []
        if not isinstance(cited, list):
            raise InputError("expected a list", field=f"$.Corpus[{index}].outgoing_citations")
        for j, c in enumerate(cited):
            d = _as_int(c, f"$.Corpus[{index}].outgoing_citations[{j}]", self.report)
            if d != index:
                self._cite_src.append(index)
                self._cite_dst.append(d)

    def _paper(self, aid: int, where: str) -> str:
        if not 0 <= aid < len(self.paper_ids):
            raise InputError(
                f"abstract {aid} is not in the corpus (0..{len(self.paper_ids) - 1})", field=where
            )
        return self.paper_ids[aid]

    # ------------------------------------------------------------------ queries
    def _query(self, qid: int, obj: Any) -> Iterator[AnyRecord]:
        where = f"$.Query[{qid}]"
        text = _need(obj, "query_text", str, where)
        pool = _need(obj, "candidate_pool", list, where)
        raw_aspects = _need(obj, "aspects", dict, where)
        if not raw_aspects:
            raise InputError("a query needs at least one aspect", field=f"{where}.aspects")
        aspects: dict[str, list[str]] = {}
        for a, subs in raw_aspects.items():
            if not isinstance(subs, list):
                raise InputError("expected a list of sub-aspect ids", field=f"{where}.aspects.{a}")
            if not subs:
                self.report.tolerated["empty sub-aspect lists"] += 1
            aspects[str(a)] = [
                _as_str_id(s, f"{where}.aspects.{a}[{j}]") for j, s in enumerate(subs)
            ]
        aspect_sents = obj.get("aspect_id2sent") or {}
        sent_aspects = obj.get("sent2aspect_id") or {}
        if not isinstance(aspect_sents, dict) or not isinstance(sent_aspects, dict):
            raise InputError("expected objects", field=f"{where}.aspect_id2sent")
        qtype = obj.get("query_type")
        query = Query(
            id=query_node_id(qid),
            qid=str(qid),
            text=text,
            source=SOURCE,
            type=str(qtype) if qtype else None,
            split="test" if str(qid) in TEST_SPLIT_QIDS else "other",
        )
        yield query
        self.report.counts["queries"] += 1
        units = dict.fromkeys([*aspects, *(s for subs in aspects.values() for s in subs)])
        for u in units:
            yield Aspect(id=aspect_node_id(u), aspect_id=u, source=SOURCE)
        for a, subs in aspects.items():
            yield HasAspect(start=query.id, end=aspect_node_id(a))
            for s in subs:
                yield HasSubAspect(start=query.id, end=aspect_node_id(s), parent=a)
                yield SubAspectOf(start=aspect_node_id(s), end=aspect_node_id(a))
        for ordinal, (sent, targets) in enumerate(sent_aspects.items()):
            sentence = Sentence(text=str(sent), query=query.id, ordinal=ordinal)
            yield sentence
            yield HasSentence(start=query.id, end=sentence.id, ordinal=ordinal)
            for t in targets if isinstance(targets, list) else [targets]:
                yield Expresses(start=sentence.id, end=aspect_node_id(str(t)))
        seen: set[int] = set()
        for pos, p in enumerate(pool):
            aid = _as_int(p, f"{where}.candidate_pool[{pos}]", self.report)
            if aid in seen:
                self.report.tolerated["duplicate pool entries"] += 1
                continue
            seen.add(aid)
            paper = self._paper(aid, f"{where}.candidate_pool[{pos}]")
            yield HasCandidate(start=query.id, end=paper, position=pos)
        self.report.counts["pool entries"] += len(seen)
        yield from self._subqueries(_QueryParts(qid, aspects, aspect_sents, sent_aspects))

    def _subqueries(self, q: _QueryParts) -> Iterator[AnyRecord]:
        """Two-aspect sub-queries by the sheet's rule
        (``Real-Doris-Mae/Doris-Mae-Dataset:benchmarking/dataset_util.py``)."""
        for a, b in combinations(q.aspects, 2):
            sents = list(dict.fromkeys([*q.aspect_sents.get(a, []), *q.aspect_sents.get(b, [])]))
            touched = {str(x) for s in sents for x in q.sent_aspects.get(s, [])}
            if not sents or len(touched) > 2:
                continue
            text = " ".join(sents)
            upstream = None
            if self.upstream_subqueries is not None:
                upstream = self.upstream_subqueries.get(" ".join(text.split()))
                if upstream is not None:
                    self._matched_subqueries.add(upstream)
            sub = SubQuery(
                qid=f"{q.qid}:{a}+{b}",
                parent_qid=str(q.qid),
                text=text,
                pair=[a, b],
                upstream_no=upstream,
            )
            yield sub
            yield DerivedFrom(start=sub.id, end=query_node_id(q.qid))
            for x in (a, b):
                yield UsesAspect(start=sub.id, end=aspect_node_id(x), role="aspect")
                for s in q.aspects[x]:
                    yield UsesAspect(start=sub.id, end=aspect_node_id(s), role="sub_aspect")
            self.report.counts["subqueries"] += 1

    # ------------------------------------------------------------------ judgements
    def _annotation(self, index: int, obj: Any) -> Iterator[AnyRecord]:
        where = f"$.Annotation[{index}]"
        if not isinstance(obj, Mapping):
            raise InputError(f"expected an object, got {type(obj).__name__}", field=where)
        for key in ("aspect_id", "abstract_id", "score"):
            if key not in obj:
                raise InputError("missing field", field=f"{where}.{key}")
        aspect = _as_str_id(obj["aspect_id"], f"{where}.aspect_id")
        if isinstance(obj["aspect_id"], int):
            self.report.tolerated["aspect ids as integers"] += 1
        aid = _as_int(obj["abstract_id"], f"{where}.abstract_id", self.report)
        score = obj["score"]
        if isinstance(score, str) and score.strip().lstrip("-").isdigit():
            self.report.tolerated["scores as strings"] += 1
            score = int(score)
        if isinstance(score, bool) or not isinstance(score, int | float) or score != score:
            raise InputError(f"score {score!r} is not a number", field=f"{where}.score")
        if score == -1:
            self.report.tolerated["unparseable annotations (score -1, summed as -1)"] += 1
        pair = (aspect, aid)
        if pair in self._seen_pairs:
            self.report.tolerated["duplicate annotations (summed)"] += 1
        else:
            self._seen_pairs.add(pair)
        self.report.counts["annotations"] += 1
        yield Judgement(
            start=aspect_node_id(aspect),
            end=self._paper(aid, f"{where}.abstract_id"),
            score=float(score),
            source="gpt",
            key=f"gpt:{index}",
        )

    def _human(self, index: int, obj: Any) -> Iterator[AnyRecord]:
        where = f"$.Test_set[{index}]"
        if not isinstance(obj, Mapping):
            raise InputError(f"expected an object, got {type(obj).__name__}", field=where)
        aspect = _as_str_id(obj.get("aspect_id"), f"{where}.aspect_id")
        aid = _as_int(obj.get("abstract_id"), f"{where}.abstract_id", self.report)
        grades = _need(obj, "human_annotation", dict, where)
        paper = self._paper(aid, f"{where}.abstract_id")
        for name, value in grades.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                score = int(value)
            else:
                score = grade_from_response(str(value) if value is not None else None)
            if score == -1:
                self.report.tolerated["unparseable human grades (-1)"] += 1
            self.report.counts["human grades"] += 1
            yield Judgement(
                start=aspect_node_id(aspect),
                end=paper,
                score=float(score),
                source="human",
                annotator=str(name),
                key=f"human:{index}:{name}",
            )

    def _aspect_texts(self, value: Any) -> Iterator[AnyRecord]:
        if not isinstance(value, Mapping):
            raise InputError("expected an object {aspect_id: text}", field="$.aspect_id2aspect")
        for a, text in value.items():
            if not isinstance(text, str):
                raise InputError("expected a string", field=f"$.aspect_id2aspect.{a}")
            yield Aspect(id=aspect_node_id(a), aspect_id=str(a), text=text, source=SOURCE)
            self.report.counts["aspect texts"] += 1
