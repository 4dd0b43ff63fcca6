"""A synthetic Semantic Scholar world with planted citation structure, in the real S2 formats.

Why: citeBench's released files are unverified and S2ORC cannot be redistributed, yet the
recommenders need a corpus where we *know* what a good recommender can exploit. The world
written here has:

* fields (citeBench's seven main fields and four low-resource ones), each with topics; a
  topic owns a vocabulary of invented words (no real text), shared by all its papers, so
  lexical matching finds the topic but is ambiguous inside it;
* inside a topic, papers form small *clusters* that later papers cite together (a citing
  paper draws most references from one or two clusters, preferring well-cited papers), so a
  held-out reference is predictable from the citing paper's other references (co-citation,
  coupling, personalized PageRank) — the planted structure;
* each citing sentence mixes topic words with a few words of the cited paper's own title,
  with the citation at the start, middle or end and short, medium or long sentences.

Files (:func:`write_world`) are JSONL in the S2 dataset layouts: ``papers``, ``abstracts``,
``citations`` (per-context intents, with ``citationid``) and ``s2orc`` (full text with
paragraph/sectionheader/bibref/bibentry annotations as JSON strings), so they load through
``scholarkg load s2`` exactly like the real dumps.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import random
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAIN_FIELDS = (
    "Biology",
    "Chemistry",
    "Computer Science",
    "Medicine",
    "Materials Science",
    "Physics",
    "Mathematics",
)
LOW_RESOURCE_FIELDS = (
    "Psychology",
    "Environmental Science",
    "Engineering",
    "Business",
    "Geography",
    "Political Science",
    "Sociology",
    "Geology",
    "History",
    "Art",
    "Philosophy",
)
SECTIONS = ("Introduction", "Related Work", "Methods", "Results", "Discussion")
INTENTS = ("background", "methodology", "result")
_ONSETS = (
    "b",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "gl",
    "kr",
    "pl",
    "st",
    "tr",
    "sk",
    "fl",
    "dr",
    "gr",
)
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ou", "ea")
_NOUN_SUFFIX = ("tion", "ment", "ness", "ity", "ism", "er", "on", "ure")
_ADJ_SUFFIX = ("ic", "al", "ous", "ive", "ary")
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
PREPS = ("in", "of", "for", "with", "from", "by")


@dataclass
class SynthPaper:
    corpus_id: int
    topic: int
    field: str
    year: int
    title_words: list[str]
    abstract_words: list[str]
    cluster: int
    references: list[int] = dataclasses.field(default_factory=list)
    full_text: bool = False
    #: an arXiv id (``externalids.ArXiv``): only the papers given ``generate(arxiv_ids=...)``
    arxiv: str | None = None


@dataclass
class CiterecWorld:
    papers: list[SynthPaper]
    seed: int
    #: topic -> its shared vocabulary (nouns + adjectives)
    topic_vocab: dict[int, list[str]] = dataclasses.field(default_factory=dict)

    def by_id(self) -> dict[int, SynthPaper]:
        return {p.corpus_id: p for p in self.papers}


def _word(rng: random.Random, suffixes: tuple[str, ...], syllables: int = 2) -> str:
    n = rng.randint(1, syllables)
    syll = "".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(n))
    return syll + rng.choice(suffixes)


def _vocab(rng: random.Random, n: int, suffixes: tuple[str, ...], taken: set[str]) -> list[str]:
    out: list[str] = []
    # two syllables give ~300k distinct words per suffix set: enough for small worlds (and
    # their seeded content stays as it was); larger worlds draw from three syllables
    syllables = 2 if len(taken) < 100_000 else 3
    while len(out) < n:
        w = _word(rng, suffixes, syllables)
        if w not in taken:
            taken.add(w)
            out.append(w)
    return out


def generate(
    n_papers: int = 400,
    *,
    topics_per_field: int | None = None,
    cluster_size: int = 8,
    refs_per_paper: tuple[int, int] = (6, 12),
    full_text_share: float = 0.5,
    seed: int = 13,
    arxiv_ids: Sequence[str] = (),
) -> CiterecWorld:
    """The world (see the module doc); papers are in time order, corpus ids 1000, 1001, …

    ``arxiv_ids`` go, in order, to the most-cited papers (ties: the older first), so that
    another corpus's papers meet this world's cited papers under the id rules (the demo's
    shared papers); the rest of the world does not change."""
    rng = random.Random(seed)
    if topics_per_field is None:  # ~100 papers per topic at scale, >= 2 topics per field
        topics_per_field = max(2, n_papers // 1800)
    taken: set[str] = set()
    fields = [*MAIN_FIELDS, *LOW_RESOURCE_FIELDS]
    weights = [6.0] * len(MAIN_FIELDS) + [1.0] * len(LOW_RESOURCE_FIELDS)
    n_topics = len(fields) * topics_per_field
    topic_nouns = [_vocab(rng, 25, _NOUN_SUFFIX, taken) for _ in range(n_topics)]
    topic_adjs = [_vocab(rng, 10, _ADJ_SUFFIX, taken) for _ in range(n_topics)]
    papers: list[SynthPaper] = []
    clusters_of_topic: dict[int, list[list[int]]] = {t: [] for t in range(n_topics)}
    years = sorted(rng.randint(1996, 2020) for _ in range(n_papers))
    for i in range(n_papers):
        f = rng.choices(range(len(fields)), weights)[0]
        topic = f * topics_per_field + rng.randrange(topics_per_field)
        own = _vocab(rng, 3, _NOUN_SUFFIX, taken)  # the paper's own words
        nouns, adjs = topic_nouns[topic], topic_adjs[topic]
        title = [rng.choice(adjs), rng.choice(nouns), own[0], rng.choice(PREPS), own[1]]
        abstract = [rng.choice(nouns + adjs) for _ in range(30)] + own * 2
        rng.shuffle(abstract)
        clusters = clusters_of_topic[topic]
        if not clusters or len(clusters[-1]) >= cluster_size:
            clusters.append([])
        cid = 1000 + i
        clusters[-1].append(cid)
        papers.append(
            SynthPaper(cid, topic, fields[f], years[i], title, abstract, cluster=len(clusters) - 1)
        )
    by_id = {p.corpus_id: p for p in papers}
    indegree: dict[int, int] = {}
    for p in papers:
        older = [c for cl in clusters_of_topic[p.topic] for c in cl if c < p.corpus_id]
        if len(older) < 4:
            continue
        my_clusters = sorted({by_id[c].cluster for c in older})
        chosen = rng.sample(my_clusters, k=min(len(my_clusters), rng.choice((1, 2))))
        pool = [c for c in older if by_id[c].cluster in chosen]
        want = rng.randint(*refs_per_paper)
        refs: list[int] = []
        while pool and len(refs) < min(want, len(pool)):
            w = [1.0 + indegree.get(c, 0) for c in pool]
            pick = rng.choices(pool, w)[0]
            pool.remove(pick)
            refs.append(pick)
        # a little noise: one or two references to any older paper (other topics too)
        for _ in range(rng.choice((0, 1, 2))):
            if p.corpus_id > 1000:
                other = rng.randrange(1000, p.corpus_id)
                if other not in refs:
                    refs.append(other)
        for r in refs:
            indegree[r] = indegree.get(r, 0) + 1
        p.references = refs
        p.full_text = len(refs) >= 4 and rng.random() < full_text_share
    if len(arxiv_ids) > len(papers):
        raise ValueError(f"{len(arxiv_ids)} shared arXiv ids for {len(papers)} papers")
    most_cited = sorted(papers, key=lambda p: (-indegree.get(p.corpus_id, 0), p.corpus_id))
    for paper, arxiv in zip(most_cited, arxiv_ids, strict=False):
        paper.arxiv = arxiv
    vocab = {t: topic_nouns[t] + topic_adjs[t] for t in range(n_topics)}
    return CiterecWorld(papers=papers, seed=seed, topic_vocab=vocab)


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


def iter_lines(world: CiterecWorld) -> Iterator[tuple[str, dict[str, Any]]]:
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


def write_world(world: CiterecWorld, out_dir: str | Path, *, gz: bool = False) -> dict[str, Path]:
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
