"""A synthetic citation world: papers with invented words, planted topics and co-citation
clusters, held in memory for the benchmark families that need such a corpus.

Why: the recommenders and rankers need a corpus where we *know* what a good one can exploit,
with no third-party text. The world has:

* fields (citeBench's seven main fields and four low-resource ones), each with topics; a
  topic owns a vocabulary of invented words (no real text), shared by all its papers, so
  lexical matching finds the topic but is ambiguous inside it;
* inside a topic, papers form small *clusters* that later papers cite together (a citing
  paper draws most references from one or two clusters, preferring well-cited papers), so a
  held-out reference is predictable from the citing paper's other references (co-citation,
  coupling, personalized PageRank) — the planted structure.

Each family writes it in its own released formats: ``synthetic/citerec_corpus.py`` as the
Semantic Scholar datasets (with citing sentences), ``synthetic/beir.py`` as a BEIR-layout
collection.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass

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
class CitationWorld:
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
) -> CitationWorld:
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
    return CitationWorld(papers=papers, seed=seed, topic_vocab=vocab)
