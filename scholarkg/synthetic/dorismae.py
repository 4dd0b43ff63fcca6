"""A synthetic DORIS-MAE dataset in the released JSON schema (v1, or v0's id spellings).

Why synthetic: the real file is CC BY-NC 4.0 (the released ``Real-Doris-Mae/Doris-Mae-Dataset``
files), so the repository ships no
derived content; tests and benchmarks use this generator, and the real file is loaded from
a user-supplied path.

Aspect structure matters here, as it does in the real benchmark:

* every aspect (and sub-aspect) is a *concept* with its own made-up vocabulary; the query
  names it with some of its words, abstracts that satisfy it use a *paraphrase* (half the
  query's words, half synonyms), so lexical overlap with the whole query is partial;
* a relevant abstract satisfies several aspects but **different** relevant abstracts
  satisfy different subsets, so no single aspect identifies them;
* *distractor* abstracts repeat the query's frequent surface words (its domain terms, said
  in every sentence) and cover only one aspect: whole-query BM25 ranks them high, while the
  GPT-style judgements (summed over aspects) rate them low;
* relevant abstracts of a query cite each other more often than chance (a graph signal).

Judgements follow the released ``Annotation`` records: 0/1/2 per (unit, pool abstract)
with a ``gpt_response`` ending in the verdict word, a few unparseable ``-1`` responses and
a few duplicated records (both are in the real data and summed by upstream). Some queries
get no abstract above the threshold, like the 9 real ones. ``Test_set`` holds human
triples for a sample of pairs.

The file is written as a stream (:func:`write_json`), so benchmarks can make a several
hundred MB file without holding it in memory.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any, Literal, TextIO

Version = Literal["v1", "v0"]
QUERY_TYPES = ("ML", "NLP", "CV", "AI", "Composite")
_SYLLABLES = (
    "ka",
    "ro",
    "mi",
    "te",
    "su",
    "va",
    "lo",
    "ne",
    "zi",
    "pa",
    "qu",
    "dor",
    "fen",
    "gal",
    "hix",
    "jun",
    "lex",
    "mor",
    "nim",
    "pex",
    "ras",
    "sol",
    "tur",
    "vek",
    "wyn",
    "xal",
    "yor",
)
_FILLER = (
    "we",
    "propose",
    "a",
    "method",
    "that",
    "uses",
    "the",
    "model",
    "for",
    "and",
    "with",
    "results",
    "show",
    "our",
    "approach",
    "on",
    "of",
    "in",
    "to",
    "is",
    "this",
    "paper",
)
_VERDICT = {2: "CONCUR", 1: "AGREE", 0: "DISAGREE"}


@dataclass
class Concept:
    """An aspect's meaning: the words a query uses and the synonyms abstracts may use."""

    unit_id: str
    text: str
    query_words: list[str]
    doc_words: list[str]
    subs: list[Concept] = field(default_factory=list)


@dataclass
class SynthQuery:
    qid: int
    text: str
    query_type: str
    aspects: list[Concept]
    domain_words: list[str]
    pool: list[int]
    sentences: list[tuple[str, list[str]]]
    #: abstract id -> set of unit ids it satisfies (2) / partly satisfies (1)
    strong: dict[int, set[str]] = field(default_factory=dict)
    partial: dict[int, set[str]] = field(default_factory=dict)


class _Words:
    """Unique made-up words from syllables (no real vocabulary in the fixtures)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen: set[str] = set()

    def new(self) -> str:
        if len(self.seen) > 15_000:  # 27**2 + 27**3 two/three-syllable words in all
            raise ValueError("too many concepts for the made-up vocabulary; use fewer queries")
        while True:
            w = "".join(self.rng.choice(_SYLLABLES) for _ in range(self.rng.randint(2, 3)))
            if w not in self.seen:
                self.seen.add(w)
                return w


class SyntheticDoris:
    """Deterministic world: queries (with pools and judgements) and a corpus of abstracts."""

    def __init__(
        self,
        *,
        n_queries: int = 12,
        pool_size: int = 30,
        n_background: int = 40,
        seed: int = 7,
        abstract_words: int = 60,
        response_words: int = 20,
        version: Version = "v1",
        arxiv_ids: Sequence[str] = (),
    ) -> None:
        """``arxiv_ids``: give the first abstracts with an arXiv URL these ids (in order), so
        another corpus's papers meet this one's under the id rules (the demo's shared papers);
        empty (the default) keeps the generated URLs."""
        if pool_size < 12:
            raise ValueError("pool_size must be >= 12 (NDCG_10% needs 10+ ranked abstracts)")
        self.rng = random.Random(seed)
        self.version = version
        self.abstract_words = abstract_words
        self.response_words = response_words
        self.words = _Words(self.rng)
        self.unit_texts: dict[str, str] = {}
        self.n_queries = n_queries
        self.pool_size = pool_size
        self.queries: list[SynthQuery] = []
        self._next_unit = 0
        self._next_abstract = 0
        #: abstract id -> (query, role) for the pool documents
        self._docs: dict[int, tuple[SynthQuery | None, str]] = {}
        for qid in range(n_queries):
            self.queries.append(self._make_query(qid))
        for _ in range(n_background):
            self._docs[self._new_abstract()] = (None, "background")
        self.n_corpus = self._next_abstract
        self._citations = self._make_citations()
        with_url = [a for a in range(self.n_corpus) if a % 7 != 6]
        if len(arxiv_ids) > len(with_url):
            raise ValueError(f"{len(arxiv_ids)} shared arXiv ids for {len(with_url)} abstracts")
        self.shared_arxiv: dict[int, str] = dict(zip(with_url, arxiv_ids, strict=False))

    # ----------------------------------------------------------------- construction
    def _unit(self, n_words: int) -> Concept:
        uid = str(self._next_unit)
        self._next_unit += 1
        qw = [self.words.new() for _ in range(n_words)]
        # abstracts keep half the query's words and swap the rest for synonyms
        dw = qw[: n_words // 2] + [self.words.new() for _ in range(n_words - n_words // 2)]
        text = " ".join(qw)
        self.unit_texts[uid] = text
        return Concept(uid, text, qw, dw)

    def _new_abstract(self) -> int:
        aid = self._next_abstract
        self._next_abstract += 1
        return aid

    def _make_query(self, qid: int) -> SynthQuery:
        rng = self.rng
        n_aspects = rng.randint(3, 5)
        aspects = [self._unit(4) for _ in range(n_aspects)]
        for a in aspects:
            a.subs = [self._unit(3) for _ in range(rng.randint(0, 2))]
        if len(aspects[0].subs) and len(aspects) > 1 and qid % 3 == 0:
            # the same sub-aspect string under two aspects: one id, counted once in |Q|
            aspects[1].subs.append(aspects[0].subs[0])
        domain = [self.words.new() for _ in range(3)]
        sentences: list[tuple[str, list[str]]] = []
        for a in aspects:
            words = [*domain[:2], *a.query_words, *(w for s in a.subs for w in s.query_words[:2])]
            words += rng.sample(_FILLER, 4)
            rng.shuffle(words)
            sentences.append((" ".join(words).capitalize() + ".", [a.unit_id]))
        # one sentence speaks of two aspects (sent2aspect_id maps it to both)
        if len(aspects) >= 2:
            a, b = aspects[-2], aspects[-1]
            words = [domain[2], *a.query_words[:2], *b.query_words[:2], *rng.sample(_FILLER, 3)]
            sentences.append((" ".join(words).capitalize() + ".", [a.unit_id, b.unit_id]))
        text = " ".join(s for s, _ in sentences)
        q = SynthQuery(
            qid, text, QUERY_TYPES[qid % len(QUERY_TYPES)], aspects, domain, [], sentences
        )
        no_relevant = qid % 5 == 4  # like the real queries without a relevant abstract
        n_rel = 0 if no_relevant else rng.randint(3, 6)
        n_distract = rng.randint(4, 7)
        pool: list[int] = []
        units = [u for a in aspects for u in (a, *a.subs)]
        for i in range(self.pool_size):
            aid = self._new_abstract()
            pool.append(aid)
            if i < n_rel:
                role = "relevant"
                # a different subset of aspects per relevant abstract (>= 60 % of them)
                k = max(2, round(len(aspects) * rng.uniform(0.6, 0.9)))
                chosen = rng.sample(aspects, min(k, len(aspects)))
                q.strong[aid] = {a.unit_id for a in chosen}
                q.strong[aid] |= {s.unit_id for a in chosen for s in a.subs if rng.random() < 0.8}
                q.partial[aid] = {a.unit_id for a in aspects if a not in chosen}
            elif i < n_rel + n_distract:
                role = "distractor"
                a = rng.choice(aspects)
                q.strong[aid] = set()
                q.partial[aid] = {a.unit_id}
            else:
                role = "other"
                q.strong[aid] = set()
                q.partial[aid] = {rng.choice(units).unit_id} if rng.random() < 0.3 else set()
            self._docs[aid] = (q, role)
        rng.shuffle(pool)
        q.pool = pool
        return q

    def _make_citations(self) -> dict[int, list[int]]:
        rng = self.rng
        out: dict[int, list[int]] = {i: [] for i in range(self.n_corpus)}
        for q in self.queries:
            rel = [a for a in q.pool if q.strong[a]]
            for a in rel:
                for b in rel:
                    if a != b and rng.random() < 0.5:
                        out[a].append(b)
            for a in q.pool:
                for _ in range(rng.randint(0, 2)):
                    out[a].append(rng.randrange(self.n_corpus))
        return {k: sorted(set(v) - {k}) for k, v in out.items()}

    # ----------------------------------------------------------------- records
    def _abstract_text(self, aid: int, rng: random.Random, noise: Callable[[], str]) -> str:
        q, role = self._docs[aid]
        words: list[str] = []
        if q is not None:
            units = {u.unit_id: u for a in q.aspects for u in (a, *a.subs)}
            for uid in sorted(q.strong[aid]):
                words += units[uid].doc_words * 2
            for uid in sorted(q.partial[aid]):
                words += units[uid].doc_words[:2]
            if role == "distractor":
                # the query's surface words, many times: lexical overlap that misleads
                words += q.domain_words * 5
                a = units[next(iter(q.partial[aid]))]
                words += a.query_words * 3
            elif role == "relevant":
                words += q.domain_words[:1]
        while len(words) < self.abstract_words:
            words.append(rng.choice(_FILLER) if rng.random() < 0.7 else noise())
        rng.shuffle(words)
        # sentences of ~12 words, so sentence-level rankers see more than one sentence
        sents = [" ".join(words[i : i + 12]).capitalize() + "." for i in range(0, len(words), 12)]
        return " ".join(sents)

    def corpus(self) -> Iterator[dict[str, Any]]:
        """``Corpus`` records in list order (abstract_id = index)."""
        rng = random.Random(f"corpus:{self.n_corpus}")

        # noise words from their own generator (corpus() must give the same text every
        # call); four syllables, so they never coincide with a concept's 2-3 syllable words
        def noise() -> str:
            return "".join(rng.choice(_SYLLABLES) for _ in range(4))

        incoming: dict[int, list[int]] = {i: [] for i in range(self.n_corpus)}
        for src, dsts in self._citations.items():
            for d in dsts:
                incoming[d].append(src)
        for aid in range(self.n_corpus):
            text = self._abstract_text(aid, rng, noise)
            if aid % 7 == 6:
                url, ss_id = "", str(200000000 + aid)  # no arXiv URL: the S2 corpus id rule
            else:
                url, ss_id = (
                    f"https://arxiv.org/abs/21{aid // 10000 % 100:02d}.{aid % 10000:05d}",
                    (f"{rng.getrandbits(160):040x}"),
                )
                if aid in self.shared_arxiv:
                    url = f"https://arxiv.org/abs/{self.shared_arxiv[aid]}"
            rec = {
                "original_abstract": text,
                "masked_abstract": text.replace("the", "[MASK]"),
                "title": f"Synthetic study {aid}: " + " ".join(text.split()[:5]),
                "url": url,
                "primary_category": "cs.LG",
                "categories": ["cs.LG", "cs.AI"],
                "ss_id": ss_id,
                "incoming_citations": sorted(incoming[aid]),
                "outgoing_citations": self._citations[aid],
                "abstract_id": str(aid) if self.version == "v0" else aid,
            }
            yield rec

    def query_records(self) -> list[dict[str, Any]]:
        out = []
        for q in self.queries:
            aspects = {a.unit_id: [s.unit_id for s in a.subs] for a in q.aspects}
            aspect_id2sent: dict[str, list[str]] = {a.unit_id: [] for a in q.aspects}
            sent2aspect_id: dict[str, list[str]] = {}
            for sent, uids in q.sentences:
                sent2aspect_id[sent] = list(uids)
                for u in uids:
                    aspect_id2sent[u].append(sent)
            pool: list[Any] = [str(p) for p in q.pool] if self.version == "v0" else list(q.pool)
            out.append(
                {
                    "query_text": q.text,
                    "query_type": q.query_type,
                    "idea_from": [q.pool[0]],
                    "candidate_pool": pool,
                    "aspects": aspects,
                    "aspect_id2sent": aspect_id2sent,
                    "sent2aspect_id": sent2aspect_id,
                }
            )
        return out

    def _response(self, score: int, rng: random.Random) -> str:
        words = " ".join(rng.choice(_FILLER) for _ in range(self.response_words))
        if score == -1:
            return f"The abstract {words}; no clear verdict."
        return f"The abstract {words}. Verdict: {_VERDICT[score]}"

    def annotations(self) -> Iterator[dict[str, Any]]:
        """``Annotation`` records: every (unit, pool abstract) pair once, a few twice."""
        rng = random.Random(f"ann:{self.n_corpus}")
        for q in self.queries:
            units = list(dict.fromkeys(u.unit_id for a in q.aspects for u in (a, *a.subs)))
            for aid in q.pool:
                for uid in units:
                    score = 2 if uid in q.strong[aid] else 1 if uid in q.partial[aid] else 0
                    if rng.random() < 0.01:
                        score = -1
                    rec = {
                        "aspect_id": uid,
                        "abstract_id": str(aid) if self.version == "v0" else aid,
                        "score": score,
                        "gpt_response": self._response(score, rng),
                    }
                    yield rec
                    if rng.random() < 0.005:
                        yield dict(rec)  # a duplicated record: upstream sums both

    def test_set(self) -> list[dict[str, Any]]:
        rng = random.Random(f"test:{self.n_corpus}")
        out = []
        for q in self.queries[:3]:
            for aid in q.pool[:2]:
                uid = q.aspects[0].unit_id
                truth = 2 if uid in q.strong[aid] else 1 if uid in q.partial[aid] else 0
                out.append(
                    {
                        "aspect_id": uid,
                        "abstract_id": aid,
                        "human_annotation": {
                            f"annotator_{i}": _VERDICT[truth] if rng.random() < 0.8 else "AGREE"
                            for i in (1, 2, 3)
                        },
                    }
                )
        return out

    def subquery_texts(self) -> list[str]:
        """Two-aspect sub-query texts by the sheet's construction rule (for subquery-2.txt)."""
        out = []
        for rec in self.query_records():
            for a, b in combinations(rec["aspects"], 2):
                sents = list(dict.fromkeys([*rec["aspect_id2sent"][a], *rec["aspect_id2sent"][b]]))
                touched = {x for s in sents for x in rec["sent2aspect_id"][s]}
                if len(touched) <= 2:
                    out.append(" ".join(sents))
        return out


def _dump_list(fh: TextIO, items: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> None:
    fh.write("[")
    for i, item in enumerate(items):
        if i:
            fh.write(", ")
        fh.write(json.dumps(item, ensure_ascii=False))
    fh.write("]")


def write_json(world: SyntheticDoris, path: str | Path) -> Path:
    """Write ``world`` as one JSON object in the released key order, streaming the lists."""
    path = Path(path)
    aspect_id2aspect = dict(world.unit_texts)
    aspect2aspect_id = {t: u for u, t in aspect_id2aspect.items()}
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"Query": ')
        _dump_list(fh, world.query_records())
        fh.write(', "Corpus": ')
        _dump_list(fh, world.corpus())
        fh.write(', "Annotation": ')
        _dump_list(fh, world.annotations())
        fh.write(', "aspect2aspect_id": ')
        fh.write(json.dumps(aspect2aspect_id, ensure_ascii=False))
        fh.write(', "aspect_id2aspect": ')
        fh.write(json.dumps(aspect_id2aspect, ensure_ascii=False))
        if world.version == "v1":
            fh.write(', "Test_set": ')
            _dump_list(fh, world.test_set())
        fh.write("}\n")
    return path


def write_subqueries(world: SyntheticDoris, path: str | Path) -> Path:
    """``subquery-2.txt``: ``Subquery: <n>`` blocks closed by 70 ``=`` (numbering shuffled)."""
    texts = world.subquery_texts()
    order = list(range(len(texts)))
    random.Random(len(texts)).shuffle(order)
    lines = []
    for n, i in enumerate(order):
        lines += [f"Subquery: {n}", texts[i], "=" * 70]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return Path(path)
