"""The synthetic citation world (``synthetic/citation_world.py``) written in the real S2
formats, with citing sentences.

Why: citeBench's released files are unverified and S2ORC cannot be redistributed, yet the
recommenders need a corpus where we *know* what a good recommender can exploit. Each citing
sentence written here mixes topic words with a few words of the cited paper's own title,
with the citation at the start, middle or end and short, medium or long sentences.

Files (:func:`write_world`) are JSONL in the S2 dataset layouts: ``papers``, ``abstracts``,
``citations`` (per-context intents, with ``citationid``) and ``s2orc`` (full text with
paragraph/sectionheader/bibref/bibentry annotations as JSON strings), so they load through
``scholarkg load s2`` exactly like the real dumps.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from scholarkg.synthetic.citation_world import PREPS, CitationWorld, SynthPaper

SECTIONS = ("Introduction", "Related Work", "Methods", "Results", "Discussion")
INTENTS = ("background", "methodology", "result")
VERBS = (
    "improves",
    "extends",
    "reports",
    "describes",
    "introduces",
    "measures",
    "predicts",
    "explains",
    "reduces",
    "models",
)
# ----------------------------------------------------------------------------- sentences


def _sentence(
    rng: random.Random,
    citing: SynthPaper,
    cited: SynthPaper,
    world_vocab: list[str],
    marker: str,
    topic_vocab: list[str],
) -> str:
    """One citing sentence: words of the cited paper's *topic* (shared by all its papers),
    at most one or two words of the cited paper's own title, and the marker."""
    n = rng.choice((4, 9, 9, 9, 16))  # short / medium / long bodies
    body = [rng.choice(topic_vocab) for _ in range(n)]
    if rng.random() < 0.35:
        body[rng.randrange(len(body))] = cited.title_words[2]
    if rng.random() < 0.15:
        body[rng.randrange(len(body))] = cited.title_words[4]
    if rng.random() < 0.5:
        body[rng.randrange(len(body))] = rng.choice(world_vocab)  # noise from anywhere
    verb = rng.choice(VERBS)
    where = rng.random()
    half = len(body) // 2
    if where < 0.2:
        words = [marker, verb, *body]
    elif where < 0.55:
        words = ["The", *body[:half], rng.choice(PREPS), marker, verb, *body[half:]]
    else:
        words = ["The", *body[:half], verb, *body[half:], rng.choice(PREPS), marker]
    text = " ".join(words)
    return text[0].upper() + text[1:] + "."


def _s2orc_record(
    rng: random.Random,
    paper: SynthPaper,
    by_id: dict[int, SynthPaper],
    world_vocab: list[str],
    topic_vocab: dict[int, list[str]],
) -> tuple[dict[str, Any], list[tuple[int, str, str]]]:
    """An S2ORC line for ``paper`` and its (cited id, sentence, intent) contexts."""
    buf: list[str] = []
    spans: dict[str, list[dict[str, Any]]] = {
        k: [] for k in ("paragraph", "sectionheader", "bibref", "bibentry")
    }

    def pos() -> int:
        return sum(len(b) for b in buf)

    def add(text: str, kind: str | None = None, attrs: dict[str, Any] | None = None) -> None:
        start = pos()
        buf.append(text)
        if kind:
            span: dict[str, Any] = {"start": start, "end": start + len(text)}
            if attrs is not None:
                span["attributes"] = attrs
            spans[kind].append(span)

    add("\n" + " ".join(paper.title_words).capitalize() + "\n\n")
    refs = list(paper.references)
    numbers = {c: n for n, c in enumerate(refs, start=1)}
    order = refs[:]
    rng.shuffle(order)
    contexts: list[tuple[int, str, str]] = []
    sections = rng.sample(SECTIONS, k=min(len(SECTIONS), max(2, len(order) // 3)))
    per = -(-len(order) // len(sections))
    for s_i, section in enumerate(sections):
        chunk = order[s_i * per : (s_i + 1) * per]
        if not chunk:
            continue
        add(section, "sectionheader", {"n": str(s_i + 1)})
        add("\n\n")
        start = pos()
        for j, cited in enumerate(chunk):
            marker = f"[{numbers[cited]}]"
            sentence = _sentence(
                rng, paper, by_id[cited], world_vocab, "\x00", topic_vocab[by_id[cited].topic]
            )
            before, _, after = sentence.partition("\x00")
            add(before)
            add(marker, "bibref", {"ref_id": f"b{numbers[cited] - 1}"})
            add(after)
            if j < len(chunk) - 1:
                add(" ")
            contexts.append((cited, before + "<REF>" + after, rng.choice(INTENTS)))
        spans["paragraph"].append({"start": start, "end": pos()})
        add("\n\n")
    for c in refs:
        start = pos()
        add(" ".join(by_id[c].title_words).capitalize() + f". {by_id[c].year}.\n")
        spans["bibentry"].append(
            {
                "start": start,
                "end": pos(),
                "attributes": {"id": f"b{numbers[c] - 1}", "matched_paper_id": c},
            }
        )
    record = {
        "corpusid": paper.corpus_id,
        "externalids": {
            "arxiv": paper.arxiv,
            "mag": None,
            "acl": None,
            "pubmed": None,
            "pubmedcentral": None,
            "dblp": None,
            "doi": None,
        },
        "content": {
            "source": {"pdfurls": None, "pdfsha": None, "oainfo": None},
            "text": "".join(buf),
            "annotations": {k: json.dumps(v) for k, v in spans.items()},
        },
    }
    return record, contexts


# ----------------------------------------------------------------------------- files


def _paper_line(p: SynthPaper, citation_count: int, reference_count: int) -> dict[str, Any]:
    return {
        "corpusid": p.corpus_id,
        "externalids": {
            "ACL": None,
            "DBLP": None,
            "ArXiv": p.arxiv,
            "MAG": None,
            "CorpusId": str(p.corpus_id),
            "PubMed": None,
            "DOI": None,
            "PubMedCentral": None,
        },
        "url": None,
        "title": " ".join(p.title_words).capitalize(),
        "authors": [],
        "venue": "",
        "publicationvenueid": None,
        "year": p.year,
        "referencecount": reference_count,
        "citationcount": citation_count,
        "influentialcitationcount": 0,
        "isopenaccess": False,
        "s2fieldsofstudy": [{"category": p.field, "source": "s2-fos-model"}],
        "publicationtypes": None,
        "publicationdate": f"{p.year}-06-01",
        "journal": None,
    }


def iter_lines(world: CitationWorld) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(dataset, JSON object)`` for every line of every file, in file order."""
    rng = random.Random(world.seed + 1)
    by_id = world.by_id()
    cited_by: dict[int, int] = {}
    for p in world.papers:
        for r in p.references:
            cited_by[r] = cited_by.get(r, 0) + 1
    vocab = [w for p in world.papers[:50] for w in p.abstract_words]
    topic_vocab = world.topic_vocab
    for p in world.papers:
        yield "papers", _paper_line(p, cited_by.get(p.corpus_id, 0), len(p.references))
        yield (
            "abstracts",
            {
                "corpusid": p.corpus_id,
                "openaccessinfo": None,
                "abstract": " ".join(p.abstract_words).capitalize() + ".",
            },
        )
    n_citation = 0
    for p in world.papers:
        if not p.references:
            continue
        record, contexts = _s2orc_record(rng, p, by_id, vocab, topic_vocab)
        by_cited: dict[int, list[tuple[str, str]]] = {}
        for cited, sentence, intent in contexts:
            by_cited.setdefault(cited, []).append((sentence.replace("<REF>", "[?]"), intent))
        for cited in p.references:
            n_citation += 1
            ctx = by_cited.get(cited, [])
            yield (
                "citations",
                {
                    "citationid": n_citation,
                    "citingcorpusid": str(p.corpus_id),
                    "citedcorpusid": str(cited),
                    "isinfluential": rng.random() < 0.1,
                    "contexts": [c for c, _ in ctx] or None,
                    "intents": [[i] for _, i in ctx] or None,
                },
            )
        if p.full_text:
            yield "s2orc", record


def write_world(world: CitationWorld, out_dir: str | Path, *, gz: bool = False) -> dict[str, Path]:
    """Write ``papers``, ``abstracts``, ``citations`` and ``s2orc`` JSONL files."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    suffix = ".jsonl.gz" if gz else ".jsonl"
    paths = {k: out / f"{k}{suffix}" for k in ("papers", "abstracts", "citations", "s2orc")}
    with ExitStack() as stack:
        handles = {
            k: stack.enter_context(
                gzip.open(p, "wt", encoding="utf-8") if gz else p.open("w", encoding="utf-8")  # noqa: SIM115 (closed by the ExitStack)
            )
            for k, p in paths.items()
        }
        for kind, obj in iter_lines(world):
            handles[kind].write(json.dumps(obj, separators=(",", ":")) + "\n")
    return paths
