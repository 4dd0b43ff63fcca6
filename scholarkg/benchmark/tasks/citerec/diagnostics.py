"""Build citeBench's eight diagnostic datasets from the loaded contexts (the citeBench paper
(Maharjan, arXiv 2412.07713)).

Population: every loaded sentence with exactly one citation (``n_refs = 1``) that ends in
``.``, ``?`` or ``!``, whose cited paper is in the graph. Class rules, as the sheet states
them; where the paper is silent the platform's choice is written here and stored:

* **fields** / **low_resource**: the cited paper's first field of study. Main fields hold
  >= 3 % of the loaded papers (shares stored); the rest are low-resource. low_resource
  examples must also be medium-length with the citation last.
* **years**: the cited paper's 5-year group, 1996-2000 … 2016-2020 (others left out).
* **citation_count**: within each (field, year group) stratum, cited papers with
  ``citation_count >= 5`` are cut into 10 equal-frequency groups 0-9 (decile edges stored
  per stratum).
* **length**: words per sentence (``<REF>`` not counted); outliers with |z| > 3 dropped,
  then short < mean − std <= medium <= mean + std < long (mean/std stored); citation last.
* **location**: ``<REF>``'s token index / length in thirds (first / middle / last); medium.
* **intent**: S2's per-context intent of the matching citation context when the pair has
  per-context intents (:func:`context_intent`), else the pair's intent when it has exactly
  one (pairs with several intents are skipped), ``methodology`` → ``method``; medium,
  citation last.
* **pos**: merged Penn class of the word before (``pos_before:<class>``) and after
  (``pos_after:<class>``) ``<REF>``; medium, citation in the middle. Stored as two datasets
  (``pos_before``, ``pos_after``) because each sentence has a class in both.

Sampling: per dataset and class at most ``per_class`` examples, drawn with a seeded RNG
stratified by (field, year group, citation decile) round-robin, so classes are not filled
from one stratum; the example's stratum is stored. Each example is a new CitationContext
node ``diag:<build>/<dataset>:<context id>`` with its labels, ``IN_PAPER``/``GOLD`` edges and
``IN_DATASET`` to a DiagnosticDataset node holding the version (a hash of seed, parameters,
tagger and cut values) and the cuts. Rebuilding with the same seed on the same graph gives
the same examples and version.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scholarkg.benchmark.tasks.citerec.textfeatures import (
    Tagger,
    location_class,
    pos_class,
    sentence_features,
)
from scholarkg.errors import InputError
from scholarkg.schema.citerec import DiagnosticDataset, Gold, InDataset, InPaper
from scholarkg.schema.records import CitationContext
from scholarkg.store.base import GraphStore

DATASETS = (
    "fields",
    "years",
    "citation_count",
    "length",
    "location",
    "intent",
    "pos_before",
    "pos_after",
    "low_resource",
)
YEAR_GROUPS = ((1996, 2000), (2001, 2005), (2006, 2010), (2011, 2015), (2016, 2020))
MAIN_FIELD_SHARE = 0.03
MIN_CITATIONS = 5
INTENT_NAMES = {
    "background": "background",
    "methodology": "method",
    "method": "method",
    "result": "result",
}


def year_group(year: int | None) -> str | None:
    if year is None:
        return None
    for lo, hi in YEAR_GROUPS:
        if lo <= year <= hi:
            return f"{lo}-{hi}"
    return None


@dataclass
class Candidate:
    """One population sentence with every label it can take."""

    row: dict[str, Any]
    field: str | None
    year_group: str | None
    decile: int | None = None
    length: int = 0
    length_class: str | None = None
    location: str | None = None
    location_ratio: float | None = None
    intent: str | None = None
    pos_before: str | None = None
    pos_after: str | None = None
    tag_before: str | None = None
    tag_after: str | None = None

    @property
    def stratum(self) -> str:
        return f"{self.field}|{self.year_group}|{self.decile}"


@dataclass
class BuildReport:
    version: str
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    cuts: dict[str, Any] = field(default_factory=dict)
    population: int = 0


def deciles(values: Sequence[int]) -> list[float]:
    """The 9 inner edges of 10 equal-frequency groups (numpy's linear quantiles)."""
    return [float(q) for q in np.quantile(np.asarray(values, dtype=float), np.arange(1, 10) / 10)]


def decile_of(value: int, edges: Sequence[float]) -> int:
    """Group 0-9 of ``value``: the number of edges strictly below it (ties go low)."""
    return int(np.searchsorted(np.asarray(edges), value, side="left"))


def _words(text: str) -> set[str]:
    from scholarkg.benchmark.tasks.citerec.textfeatures import PLACEHOLDER, tokens_of

    return {t.lower() for t in tokens_of(text) if t != PLACEHOLDER}


def context_intent(text: str, row: Mapping[str, Any]) -> list[str]:
    """The citeBench intent(s) of one sentence (``methodology`` → ``method``).

    Per-context intents win (the citeBench paper (Maharjan, arXiv 2412.07713), data pitfalls): when
    the citing pair carries S2's per-context
    lists, the S2 context sharing the most words with the sentence (Jaccard >= 0.5) gives
    the intents. Otherwise the pair's intents apply; the caller keeps only single-intent
    results, so pairs with several intents are skipped.
    """
    contexts, per = row.get("contexts"), row.get("context_intents")
    if contexts and per:
        try:
            lists = json.loads(per)
        except ValueError:
            lists = None
        if isinstance(lists, list) and len(lists) == len(contexts):
            mine = _words(text)
            best, best_sim = None, 0.0
            for ctx, labels in zip(contexts, lists, strict=True):
                other = _words(str(ctx))
                sim = len(mine & other) / len(mine | other) if mine | other else 0.0
                if sim > best_sim:
                    best, best_sim = labels, sim
            if best is not None and best_sim >= 0.5:
                return sorted({INTENT_NAMES[i] for i in best if i in INTENT_NAMES})
    pair = [INTENT_NAMES.get(str(i)) for i in (row.get("intents") or [])]
    return sorted({i for i in pair if i})


def _label_population(
    rows: Iterable[Mapping[str, Any]], tagger: Tagger, shares: Mapping[str, int]
) -> tuple[list[Candidate], dict[str, Any]]:
    total = sum(shares.values()) or 1
    main = sorted(f for f, n in shares.items() if n / total >= MAIN_FIELD_SHARE)
    cuts: dict[str, Any] = {
        "main_fields": main,
        "field_shares": {f: n / total for f, n in shares.items()},
    }
    cands: list[Candidate] = []
    for row in rows:
        text = str(row["text"]).strip()
        if not text.endswith((".", "?", "!")):
            continue
        fields = row.get("fields") or []
        feats = sentence_features(text, tagger)
        if feats.ref_index is None:
            continue
        intents = context_intent(text, row)
        cands.append(
            Candidate(
                row=dict(row),
                field=fields[0] if fields else None,
                year_group=year_group(row.get("year")),
                length=feats.length_tokens,
                location_ratio=feats.location_ratio,
                location=location_class(feats.location_ratio)
                if feats.location_ratio is not None
                else None,
                intent=intents[0] if len(intents) == 1 else None,
                pos_before=pos_class(feats.tag_before) if feats.tag_before else None,
                pos_after=pos_class(feats.tag_after) if feats.tag_after else None,
                tag_before=feats.tag_before,
                tag_after=feats.tag_after,
            )
        )
    # length: z-score outliers out, then mean +- std
    lengths = np.array([c.length for c in cands], dtype=float)
    if len(lengths):
        mu, sd = float(lengths.mean()), float(lengths.std())
        keep = [c for c in cands if sd == 0 or abs((c.length - mu) / sd) <= 3]
        kept = np.array([c.length for c in keep], dtype=float)
        mean, std = (float(kept.mean()), float(kept.std())) if len(kept) else (mu, sd)
        for c in keep:
            c.length_class = (
                "short" if c.length < mean - std else "long" if c.length > mean + std else "medium"
            )
        cuts["length"] = {
            "mean": mean,
            "std": std,
            "short_below": mean - std,
            "long_above": mean + std,
            "outlier_z": 3,
        }
    # citation-count deciles per (field, year group) stratum of cited papers
    per_stratum: dict[str, dict[str, int]] = defaultdict(dict)
    for c in cands:
        cc = c.row.get("citation_count")
        if c.field and c.year_group and cc is not None and cc >= MIN_CITATIONS:
            per_stratum[f"{c.field}|{c.year_group}"][str(c.row["cited"])] = int(cc)
    edges = {k: deciles(list(v.values())) for k, v in per_stratum.items() if v}
    for c in cands:
        cc = c.row.get("citation_count")
        key = f"{c.field}|{c.year_group}"
        if key in edges and cc is not None and cc >= MIN_CITATIONS:
            c.decile = decile_of(int(cc), edges[key])
    cuts["citation_deciles"] = {"min_citations": MIN_CITATIONS, "edges": edges}
    cuts["location"] = {"first_below": 1 / 3, "last_above": 2 / 3}
    return cands, cuts


def _class_of(dataset: str, c: Candidate, main: set[str]) -> str | None:
    medium = c.length_class == "medium"
    if dataset == "fields":
        return c.field if c.field in main else None
    if dataset == "low_resource":
        return (
            c.field
            if (c.field and c.field not in main and medium and c.location == "last")
            else None
        )
    if dataset == "years":
        return c.year_group
    if dataset == "citation_count":
        return None if c.decile is None else str(c.decile)
    if dataset == "length":
        return c.length_class if c.location == "last" else None
    if dataset == "location":
        return c.location if medium else None
    if dataset == "intent":
        return c.intent if medium and c.location == "last" else None
    if dataset == "pos_before":
        return c.pos_before if medium and c.location == "middle" else None
    if dataset == "pos_after":
        return c.pos_after if medium and c.location == "middle" else None
    raise InputError(f"unknown diagnostic dataset {dataset!r}")


def _sample(items: list[Candidate], k: int, rng: random.Random) -> list[Candidate]:
    """Up to ``k`` items, round-robin over strata in a seeded order (see the module doc)."""
    by_stratum: dict[str, list[Candidate]] = defaultdict(list)
    for c in sorted(items, key=lambda c: str(c.row["id"])):
        by_stratum[c.stratum].append(c)
    strata = sorted(by_stratum)
    rng.shuffle(strata)
    for s in strata:
        rng.shuffle(by_stratum[s])
    out: list[Candidate] = []
    while len(out) < k and any(by_stratum.values()):
        for s in strata:
            if by_stratum[s] and len(out) < k:
                out.append(by_stratum[s].pop())
    return out


def build_diagnostics(
    store: GraphStore,
    *,
    build: str = "citebench",
    seed: int = 0,
    per_class: int = 50,
    tagger: Tagger,
    datasets: Sequence[str] = DATASETS,
) -> BuildReport:
    """Label the population, sample per class and store every dataset (module doc)."""
    from scholarkg.loaders.writer import write_records

    if per_class < 1:
        raise InputError("--per-class must be >= 1", field="per_class")
    shares = {str(r["field"]): int(r["n"]) for r in store.run_named("citerec/field_shares", {})}
    rows = store.run_named("citerec/diagnostic_population", {})
    cands, cuts = _label_population(rows, tagger, shares)
    if not cands:
        raise InputError(
            "no single-citation contexts are loaded; load S2ORC or unarXive "
            "full text first ('scholarkg load s2 --s2orc …')"
        )
    main = set(cuts["main_fields"])
    params = {
        "seed": seed,
        "per_class": per_class,
        "tagger": tagger.name,
        "datasets": list(datasets),
    }
    version = (
        "v-"
        + hashlib.sha256(
            json.dumps([params, cuts, len(cands)], sort_keys=True, default=str).encode()
        ).hexdigest()[:12]
    )
    report = BuildReport(version=version, cuts=cuts, population=len(cands))
    records: list[Any] = []
    for dataset in datasets:
        rng = random.Random(f"{seed}:{dataset}")
        by_class: dict[str, list[Candidate]] = defaultdict(list)
        for c in cands:
            label = _class_of(dataset, c, main)
            if label is not None:
                by_class[label].append(c)
        chosen = {
            label: _sample(items, per_class, rng) for label, items in sorted(by_class.items())
        }
        n = sum(len(v) for v in chosen.values())
        report.counts[dataset] = {label: len(v) for label, v in chosen.items()}
        ds = DiagnosticDataset(
            name=dataset,
            build=build,
            version=version,
            seed=seed,
            cuts=json.dumps(cuts, sort_keys=True, default=str),
            n_examples=n,
            classes=sorted(chosen),
            tagger=tagger.name,
        )
        records.append(ds)
        store.run_named("citerec/drop_diagnostic_examples", {"dataset": ds.id})
        for label, items in chosen.items():
            for c in items:
                r = c.row
                node = CitationContext(
                    id=f"{ds.id}:{r['id']}",
                    citing=str(r["citing"]),
                    cited=str(r["cited"]),
                    text=str(r["text"]),
                    citation_text=r.get("citation_text"),
                    section=r.get("section"),
                    source=r.get("source"),
                    n_refs=1,
                    diag_dataset=dataset,
                    diag_class=label,
                    sample_id=str(r["id"]),
                    dataset_version=version,
                    stratum=c.stratum,
                    field=c.field,
                    year=r.get("year"),
                    year_group=c.year_group,
                    citation_count_group=c.decile,
                    length_tokens=c.length,
                    length_class=c.length_class,
                    location_ratio=c.location_ratio,
                    location=c.location,
                    intent=c.intent,
                    pos_before=c.pos_before,
                    pos_after=c.pos_after,
                    pos_before_tag=c.tag_before,
                    pos_after_tag=c.tag_after,
                )
                records += [
                    node,
                    InDataset(start=node.id, end=ds.id),
                    InPaper(start=node.id, end=node.citing),
                    Gold(start=node.id, end=str(r["cited"])),
                ]
    write_records(store, records)
    return report


def summary_rows(report: BuildReport) -> list[dict[str, Any]]:
    """One row per (dataset, class) for the CLI table."""
    return [
        {"dataset": d, "class": c, "examples": n}
        for d, classes in report.counts.items()
        for c, n in classes.items()
    ]


__all__ = ["DATASETS", "BuildReport", "build_diagnostics", "decile_of", "deciles"]
