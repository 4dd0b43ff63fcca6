"""A synthetic LEGOBench world: papers, citations, comparisons and leaderboards.

Written in the exact formats the loaders read (Papers with Code dumps, an arXiv-papers
collection as JSONL + edge lists, LEGOBench's ``rplm.xlsx``), plus ``leaderboards.jsonl``
with the ground truth.

The generator is built so that ranking papers on a leaderboard is *not* a tautology:

* Scores follow a noisy upward trend over time (later papers tend to be better), with a
  hidden per-paper quality term shared across the paper's leaderboards and per-leaderboard
  noise, so neither date nor any single graph signal gives the order.
* Published dates are noisy (a paper's arXiv date can trail or lead its real time) and
  some are missing in the PwC rows.
* Comparison edges point from a paper to earlier baselines: usually ones it beats, sometimes
  stronger ones; only a fraction are recorded, some point the wrong way, and as many again
  connect papers outside the leaderboard (comparisons on other datasets, to distractor
  papers), often labelled with a same-task dataset, so a label does not reveal membership.
* Full texts print most (not all) result tables, under metric aliases, with re-run
  baselines' numbers slightly off their own papers'.
* Citations follow preferential attachment over the whole corpus; leaderboard papers cite
  some of their predecessors, and many citations go elsewhere.
* Distractor papers share the task vocabulary, and not every leaderboard paper mentions
  the dataset or metric in its abstract (candidate retrieval has imperfect recall).

All randomness flows from one ``seed``.
"""

from __future__ import annotations

import csv
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: invented task areas: (task, words used in titles/abstracts, metrics (name, higher_is_better))
TASKS: tuple[tuple[str, tuple[str, ...], tuple[tuple[str, bool], ...]], ...] = (
    ("image classification", ("image", "classification", "visual", "recognition"),
     (("top-1 accuracy", True), ("error rate", False))),
    ("question answering", ("question", "answering", "reading", "comprehension"),
     (("exact match", True), ("f1", True))),
    ("named entity recognition", ("entity", "recognition", "tagging", "sequence"),
     (("f1", True),)),
    ("language modelling", ("language", "modelling", "token", "prediction"),
     (("perplexity", False), ("bits per character", False))),
    ("machine translation", ("translation", "sequence", "decoder", "alignment"),
     (("bleu", True),)),
    ("link prediction", ("graph", "link", "prediction", "embedding"),
     (("mrr", True), ("hits@10", True))),
    ("object detection", ("object", "detection", "box", "visual"),
     (("box ap", True),)),
    ("speech recognition", ("speech", "recognition", "acoustic", "audio"),
     (("word error rate", False),)),
)  # fmt: skip

_SYLLABLES = ("ka", "lo", "mi", "ra", "ten", "vo", "shi", "qu", "zel", "dor", "fin", "bra",
              "nu", "pex", "tor", "gal", "wen", "ix", "sor", "mu")  # fmt: skip
_ADJECTIVES = ("robust", "efficient", "scalable", "adaptive", "sparse", "deep", "contrastive",
               "hierarchical", "lightweight", "unified", "self-supervised", "multi-scale",
               "probabilistic", "structured", "recurrent", "dynamic")  # fmt: skip
_NOUNS = ("networks", "transformers", "representations", "attention", "ensembles", "encoders",
          "priors", "graphs", "memories", "kernels", "objectives", "routing")  # fmt: skip
_FILLER = ("we study", "the proposed approach", "our analysis shows", "in contrast to prior work",
           "experiments indicate", "we further observe", "an ablation confirms", "this suggests",
           "compared with strong baselines", "empirically")  # fmt: skip


_METRIC_ALIASES: dict[str, tuple[str, ...]] = {
    "top-1 accuracy": ("Top-1 Acc.", "Acc@1"), "error rate": ("Err.", "Error (%)"),
    "exact match": ("EM",), "f1": ("F1-score", "F1 (%)"), "perplexity": ("PPL",),
    "bits per character": ("BPC",), "bleu": ("BLEU-4",), "hits@10": ("H@10",),
    "box ap": ("AP (box)",), "word error rate": ("WER",),
}  # fmt: skip


def _name(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(parts))


@dataclass
class SynthPaper:
    index: int
    arxiv_id: str
    time: float  # true (continuous) publication time, years
    date: str  # published (noisy) ISO date
    title: str
    abstract: str
    method: str
    task_index: int | None
    categories: list[str]
    full_text: str = ""
    leaderboards: list[int] = field(default_factory=list)
    quality: float = 0.0  # hidden, shared by every leaderboard the paper is on


@dataclass
class SynthLeaderboard:
    index: int
    task: str
    dataset: str
    metric: str
    higher_is_better: bool
    papers: list[int]  # best first (ground truth)
    scores: list[float]  # aligned with papers


@dataclass
class SynthCorpus:
    papers: list[SynthPaper]
    leaderboards: list[SynthLeaderboard]
    citations: list[tuple[int, int]]
    #: (reporting paper, baseline, leaderboard the pair is on — None for comparisons elsewhere)
    comparisons: list[tuple[int, int, int | None]]
    seed: int
    #: labels written for comparisons made elsewhere: (a, b) -> a leaderboard of the same task,
    #: so an edge's dataset/metric label does not reveal whether the pair is on a leaderboard
    comparison_labels: dict[tuple[int, int], int] = field(default_factory=dict)


def _date_from_time(t: float) -> str:
    year = math.floor(t)
    day_of_year = int((t - year) * 365)
    month = min(12, day_of_year // 31 + 1)
    day = min(28, day_of_year % 31 + 1)
    return f"{year:04d}-{month:02d}-{day:02d}"


def _arxiv_id(t: float, serial: int) -> str:
    year = math.floor(t)
    month = min(12, int((t - year) * 12) + 1)
    return f"{year % 100:02d}{month:02d}.{serial:05d}"


def generate(
    *,
    n_papers: int = 600,
    n_leaderboards: int = 40,
    seed: int = 13,
    full_text: bool = True,
    entries: tuple[int, int] = (3, 12),
) -> SynthCorpus:
    """Build the world in memory (``write_corpus`` puts it into files)."""
    rng = random.Random(seed)
    start, end = 2012.0, 2022.5
    times = sorted(rng.uniform(start, end) for _ in range(n_papers))
    serial_by_month: dict[str, int] = {}
    papers: list[SynthPaper] = []
    used_methods: set[str] = set()
    for i, t in enumerate(times):
        task_index = rng.randrange(len(TASKS)) if rng.random() < 0.85 else None
        method = _name(rng, rng.choice((2, 3)))
        if method in used_methods:  # the syllable space is small: disambiguate, don't loop
            method = f"{method}{i}"
        used_methods.add(method)
        method_label = method.capitalize() + rng.choice(("", "-B", "-L", "Net", "Former", "++"))
        # published date: usually close to the true time, sometimes months off either way
        noise = rng.gauss(0, 0.15) + (
            rng.choice((-1, 1)) * rng.uniform(0.3, 1.0) if rng.random() < 0.15 else 0.0
        )
        pub = min(end, max(start, t + noise))
        month_key = _arxiv_id(pub, 0)[:4]
        serial_by_month[month_key] = serial_by_month.get(month_key, 0) + 1
        arxiv = _arxiv_id(pub, serial_by_month[month_key])
        words = TASKS[task_index][1] if task_index is not None else ("method", "learning")
        title = (
            f"{method_label}: {rng.choice(_ADJECTIVES).capitalize()} "
            f"{rng.choice(_NOUNS)} for {rng.choice(words)} {rng.choice(words)}"
        )
        papers.append(
            SynthPaper(
                index=i,
                arxiv_id=arxiv,
                time=t,
                date=_date_from_time(pub),
                title=title,
                abstract="",
                method=method_label,
                task_index=task_index,
                categories=[rng.choice(("cs.LG", "cs.CL", "cs.CV", "cs.IR", "stat.ML"))],
            )
        )

    for p in papers:  # a method that is good on one benchmark tends to be good on others
        p.quality = rng.gauss(0, 3.0)

    # leaderboards: choose a task, a dataset name, a metric; entries from papers on that task
    leaderboards: list[SynthLeaderboard] = []
    by_task: dict[int, list[int]] = {}
    for p in papers:
        if p.task_index is not None:
            by_task.setdefault(p.task_index, []).append(p.index)
    datasets_by_task: dict[int, list[str]] = {}
    seen_keys: set[tuple[str, str, str]] = set()
    attempts = 0
    while len(leaderboards) < n_leaderboards and attempts < n_leaderboards * 20:
        attempts += 1
        ti = rng.randrange(len(TASKS))
        pool = by_task.get(ti, [])
        if len(pool) < entries[0]:
            continue
        task, _, metrics = TASKS[ti]
        names = datasets_by_task.setdefault(ti, [])
        max_names = max(4, n_leaderboards // len(TASKS))
        if not names or (len(names) < max_names and rng.random() < 0.5):
            names.append(_name(rng, 2).capitalize() + rng.choice(("-10", "-2k", "QA", "Bench", "")))
        dataset = rng.choice(names)
        metric, higher = rng.choice(metrics)
        if (task, dataset, metric) in seen_keys:
            continue
        seen_keys.add((task, dataset, metric))
        size = rng.randint(entries[0], min(entries[1], len(pool)))
        chosen = rng.sample(pool, size)
        # score = trend over time + per-paper quality noise; sign flips for lower-is-better
        base, slope = rng.uniform(40, 70), rng.uniform(1.0, 3.5)
        raw = {
            pi: base + slope * (papers[pi].time - start) + papers[pi].quality + rng.gauss(0, 2.5)
            for pi in chosen
        }
        if higher:
            scores = {pi: round(v, 2) for pi, v in raw.items()}
        else:  # error-like metric: lower is better, still improving over time
            scores = {pi: round(max(0.5, 120 - v), 2) for pi, v in raw.items()}
        order = sorted(chosen, key=lambda pi: (-scores[pi] if higher else scores[pi], pi))
        lb = SynthLeaderboard(
            index=len(leaderboards), task=task, dataset=dataset, metric=metric,
            higher_is_better=higher, papers=order, scores=[scores[pi] for pi in order],
        )  # fmt: skip
        leaderboards.append(lb)
        for pi in chosen:
            papers[pi].leaderboards.append(lb.index)

    # abstracts and full texts mention task/dataset/metric with some probability
    for p in papers:
        words = TASKS[p.task_index][1] if p.task_index is not None else ("learning", "method")
        task_name = (
            TASKS[p.task_index][0] if p.task_index is not None else "representation learning"
        )
        sentences = [
            f"We introduce {p.method}, {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)} for {task_name}.",  # noqa: E501
            f"{rng.choice(_FILLER).capitalize()} that {rng.choice(words)} {rng.choice(_NOUNS)} "
            f"benefit from {rng.choice(_ADJECTIVES)} {rng.choice(_NOUNS)}.",
        ]
        for li in p.leaderboards:
            lb = leaderboards[li]
            if rng.random() < 0.85:
                mention_metric = f" in {lb.metric}" if rng.random() < 0.6 else ""
                sentences.append(
                    f"On {lb.dataset} it improves over previous methods{mention_metric}."
                )
        if not p.leaderboards and p.task_index is not None and rng.random() < 0.5:
            # distractors talk about the same datasets without being on the leaderboard
            names = datasets_by_task.get(p.task_index) or ["a benchmark"]
            sentences.append(f"We also discuss results reported on {rng.choice(names)}.")
        sentences.append(f"{rng.choice(_FILLER).capitalize()} {rng.choice(words)} matters.")
        p.abstract = " ".join(sentences)

    # citations: each paper cites earlier ones (preferential attachment + leaderboard peers)
    citations: set[tuple[int, int]] = set()
    in_degree = [1.0] * n_papers
    for p in papers:
        if p.index == 0:
            continue
        n_refs = min(p.index, max(1, int(rng.expovariate(1 / 8))))
        earlier = range(p.index)
        for _ in range(n_refs):
            # preferential attachment via a weighted pick among a random sample
            sample = rng.sample(earlier, min(len(earlier), 20))
            target = max(sample, key=lambda j: in_degree[j] * rng.random())
            citations.add((p.index, target))
            in_degree[target] += 1
        for li in p.leaderboards:
            for q in leaderboards[li].papers:
                if papers[q].time < p.time and rng.random() < 0.45:
                    citations.add((p.index, q))
                    in_degree[q] += 1

    # comparisons: a paper reports results against earlier work. Mostly it beats them (SOTA
    # claims), sometimes it compares with a stronger earlier method; only a fraction is
    # recorded, some are recorded the wrong way round, and as many again are made elsewhere.
    comparisons: set[tuple[int, int, int | None]] = set()
    for lb in leaderboards:
        for a_pos, a in enumerate(lb.papers):
            for b in lb.papers[a_pos + 1 :]:  # a beats b
                newer, older = (a, b) if papers[a].time > papers[b].time else (b, a)
                p_recorded = 0.55 if newer == a else 0.25
                if rng.random() < p_recorded:
                    if rng.random() < 0.12:
                        comparisons.add((older, newer, lb.index))  # recorded the wrong way round
                    else:
                        comparisons.add((newer, older, lb.index))
    n_noise = max(1, len(comparisons))
    labels: dict[tuple[int, int], int] = {}
    boards_by_task: dict[int, list[int]] = {}
    task_index_of = {t[0]: i for i, t in enumerate(TASKS)}
    for lb in leaderboards:
        boards_by_task.setdefault(task_index_of[lb.task], []).append(lb.index)
    for _ in range(n_noise):  # comparisons elsewhere: other datasets, distractors
        a = rng.randrange(1, n_papers)
        b = rng.randrange(a)
        comparisons.add((a, b, None))
        task_index = papers[a].task_index
        same_task = boards_by_task.get(task_index) if task_index is not None else None
        if same_task and rng.random() < 0.6:
            labels[(a, b)] = rng.choice(same_task)

    if full_text:
        for p in papers:
            p.full_text = _full_text(rng, p, papers, leaderboards, comparisons)
    return SynthCorpus(
        papers=papers, leaderboards=leaderboards, citations=sorted(citations),
        comparisons=sorted(comparisons, key=lambda c: (c[0], c[1], -1 if c[2] is None else c[2])),
        seed=seed, comparison_labels=labels,
    )  # fmt: skip


def _full_text(
    rng: random.Random,
    p: SynthPaper,
    papers: list[SynthPaper],
    leaderboards: list[SynthLeaderboard],
    comparisons: set[tuple[int, int, int | None]],
) -> str:
    """Sections with result tables written as markdown (what LGPLM chunks contain).

    Not every paper prints every result table (some report in prose or figures), metric
    names appear under common aliases, and re-run baselines get slightly different numbers
    than their own papers report, as in real papers.
    """
    parts = [f"1 Introduction\n{p.abstract}"]
    parts.append("2 Method\n" + " ".join(f"{rng.choice(_FILLER).capitalize()}." for _ in range(4)))
    for li in p.leaderboards:
        if rng.random() > 0.8:
            continue
        lb = leaderboards[li]
        my_pos = lb.papers.index(p.index)
        rows = [(p.method, lb.scores[my_pos])]
        for q_pos, q in enumerate(lb.papers):
            if q != p.index and papers[q].time < p.time and rng.random() < 0.6:
                score = lb.scores[q_pos]
                if rng.random() < 0.3:  # a re-run baseline
                    score = round(score + rng.uniform(-0.8, 0.8), 2)
                rows.append((papers[q].method, score))
        metric = rng.choice((lb.metric, *_METRIC_ALIASES.get(lb.metric, ())))
        table = "\n".join(f"| {m} | {s:.2f} |" for m, s in rows)
        parts.append(
            f"3 Experiments\nTable: {metric} on {lb.dataset} ({lb.task}).\n"
            f"| Method | {metric} |\n| --- | --- |\n{table}"
        )
    parts.append("4 Conclusion\n" + f"{rng.choice(_FILLER).capitalize()}.")
    return "\n\n".join(parts)


# --------------------------------------------------------------------------- writers

#: fixed text of our synthetic RPLM instruction (our own words, same layout as the release)
RPLM_INSTRUCTION = (
    "You are given a list of research papers. Order them from the best to the worst result "
    "on the leaderboard described below. Answer with the paper titles, one per line."
)


def _pwc_paper_url(p: SynthPaper) -> str:
    slug = "-".join(p.title.lower().replace(":", "").split()[:6])
    return f"https://paperswithcode.com/paper/{slug}"


def write_corpus(
    corpus: SynthCorpus,
    out_dir: str | Path,
    *,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Write every format; returns ``{name: path}``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    papers = corpus.papers
    files: dict[str, Path] = {}

    def note(name: str, path: Path) -> None:
        files[name] = path
        if progress:
            progress(name)

    # arXiv papers collection: JSONL + edge lists
    path = out / "papers.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for p in papers:
            row: dict[str, Any] = {
                "id": p.arxiv_id, "arxiv_id": p.arxiv_id, "title": p.title,
                "abstract": p.abstract, "date": p.date, "categories": p.categories,
            }  # fmt: skip
            if p.full_text:
                row["full_text"] = p.full_text
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    note("papers", path)
    path = out / "citations.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["start", "end"])
        writer.writerows([papers[a].arxiv_id, papers[b].arxiv_id] for a, b in corpus.citations)
    note("citations", path)
    path = out / "comparisons.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["start", "end", "dataset", "task", "metric"])
        for a, b, li in corpus.comparisons:
            label = li if li is not None else corpus.comparison_labels.get((a, b))
            lb = corpus.leaderboards[label] if label is not None else None
            cells = [papers[a].arxiv_id, papers[b].arxiv_id]
            cells += [lb.dataset, lb.task, lb.metric] if lb else ["", "", ""]
            writer.writerow(cells)
    note("comparisons", path)

    # Papers with Code: evaluation-tables.json, papers-with-abstracts.json, links
    rng = random.Random(corpus.seed + 1)
    tasks: dict[str, dict[str, Any]] = {}
    for lb in corpus.leaderboards:
        task = tasks.setdefault(
            lb.task,
            {"task": lb.task, "description": "", "categories": ["Synthetic"], "datasets": [],
             "subtasks": [], "synonyms": [], "source_link": None},
        )  # fmt: skip
        ds = next((d for d in task["datasets"] if d["dataset"] == lb.dataset), None)
        if ds is None:
            ds = {
                "dataset": lb.dataset, "description": "", "dataset_links": [],
                "dataset_citations": [], "subdatasets": [], "sota": {"metrics": [], "rows": []},
            }  # fmt: skip
            task["datasets"].append(ds)
        ds["sota"]["metrics"].append(lb.metric)
        for pi, score in zip(lb.papers, lb.scores, strict=True):
            p = papers[pi]
            value: Any = score
            if rng.random() < 0.3:
                value = f"{score}%" if lb.metric.endswith("accuracy") else f"{score}"
            sota_row: dict[str, Any] | None = next(
                (r for r in ds["sota"]["rows"] if r["model_name"] == p.method), None
            )
            if sota_row is None:
                has_url = rng.random() > 0.08  # some PwC rows lack a paper link
                sota_row = {
                    "model_name": p.method, "paper_title": p.title if has_url else "",
                    "paper_url": f"https://arxiv.org/abs/{p.arxiv_id}" if has_url else "",
                    "paper_date": p.date if rng.random() > 0.1 else None,
                    "code_links": [], "model_links": [], "metrics": {},
                    "uses_additional_data": rng.random() < 0.1,
                }  # fmt: skip
                ds["sota"]["rows"].append(sota_row)
            sota_row["metrics"][lb.metric] = value
    path = out / "evaluation-tables.json"
    path.write_text(json.dumps(list(tasks.values()), indent=1), encoding="utf-8")
    note("evaluation_tables", path)

    pwa = []
    links = []
    for p in papers:
        url = _pwc_paper_url(p)
        task_name = TASKS[p.task_index][0] if p.task_index is not None else None
        pwa.append({
            "paper_url": url, "arxiv_id": p.arxiv_id, "title": p.title, "abstract": p.abstract,
            "url_abs": f"https://arxiv.org/abs/{p.arxiv_id}",
            "url_pdf": f"https://arxiv.org/pdf/{p.arxiv_id}.pdf", "proceeding": None,
            "authors": [_name(rng, 2).capitalize() + " " + _name(rng, 3).capitalize()
                        for _ in range(rng.randint(1, 4))],
            "tasks": [task_name.title()] if task_name else [], "date": p.date,
            "methods": [{"name": p.method, "full_name": p.method, "description": "",
                         "main_collection": None}],
        })  # fmt: skip
        if rng.random() < 0.4:
            links.append({
                "paper_url": url, "paper_title": p.title, "paper_arxiv_id": p.arxiv_id,
                "paper_url_abs": f"https://arxiv.org/abs/{p.arxiv_id}",
                "paper_url_pdf": f"https://arxiv.org/pdf/{p.arxiv_id}.pdf",
                "repo_url": f"https://example.org/{p.method.lower()}/code",
                "is_official": rng.random() < 0.7, "mentioned_in_paper": rng.random() < 0.5,
                "mentioned_in_github": rng.random() < 0.5, "framework": "none",
            })  # fmt: skip
    path = out / "papers-with-abstracts.json"
    path.write_text(json.dumps(pwa, indent=1), encoding="utf-8")
    note("papers_with_abstracts", path)
    path = out / "links-between-papers-and-code.json"
    path.write_text(json.dumps(links, indent=1), encoding="utf-8")
    note("links", path)

    # ground truth
    path = out / "leaderboards.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for lb in corpus.leaderboards:
            fh.write(json.dumps({
                "task": lb.task, "dataset": lb.dataset, "metric": lb.metric,
                "higher_is_better": lb.higher_is_better,
                "ranking": [papers[pi].arxiv_id for pi in lb.papers], "scores": lb.scores,
                "methods": [papers[pi].method for pi in lb.papers],
            }) + "\n")  # fmt: skip
    note("leaderboards", path)

    path = out / "rplm.xlsx"
    write_rplm_xlsx(corpus, path)
    note("rplm", path)
    return files


def write_rplm_xlsx(corpus: SynthCorpus, path: Path) -> None:
    """LEGOBench's ``rplm.xlsx`` layout: blank index column, instruction, model_options, GT."""
    from openpyxl import Workbook

    rng = random.Random(corpus.seed + 2)
    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append([None, "instruction", "model_options", "GT"])
    for row, lb in enumerate(corpus.leaderboards):
        titles = [corpus.papers[pi].title for pi in lb.papers]
        shuffled = titles[:]
        rng.shuffle(shuffled)
        query = (
            f"Query - Rank the performance of the following papers on the {lb.task} task "
            f"on dataset {lb.dataset} using metric {lb.metric}:"
        )
        ws.append([row, f"{RPLM_INSTRUCTION}\n{query}", "\n".join(shuffled), "\n".join(titles)])
    wb.save(path)
