"""Diagnostic datasets: the offline tagger and features on fixtures, the class rules, and the
built datasets (stored, reproducible from the seed, cut values kept) run through ``citerec``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok
from _fakes import num

from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.benchmark.tasks.citerec.diagnostics import decile_of, deciles, year_group
from scholarkg.benchmark.tasks.citerec.textfeatures import (
    PLACEHOLDER,
    RuleTagger,
    location_class,
    pos_class,
    sentence_features,
    tokens_of,
)
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.synthetic.citation_world import generate
from scholarkg.synthetic.citerec_corpus import write_world

TAGGED = [  # (sentence, expected tags) written for the fallback tagger
    ("We propose a novel method", ["PRP", "VBP", "DT", "JJ", "NN"]),
    ("The proposed models were evaluated recently", ["DT", "VBN", "NNS", "VBD", "VBN", "RB"]),
    ("It improves accuracy in 3 settings", ["PRP", "VBZ", "NN", "IN", "CD", "NNS"]),
    ("Their analysis shows that Smith used it", ["PRP$", "NN", "VBZ", "IN", "NNP", "VBD", "PRP"]),
]


@pytest.mark.parametrize(("sentence", "tags"), TAGGED)
def test_rule_tagger_on_fixtures(sentence: str, tags: list[str]) -> None:
    assert RuleTagger().tag(sentence.split()) == tags


def test_features_skip_the_placeholder_and_residual_markers() -> None:
    text = "As shown by Smith [3] and (Lee et al., 2019), we use <REF> for training."
    assert tokens_of(text) == [
        "As",
        "shown",
        "by",
        "Smith",
        "and",
        "we",
        "use",
        PLACEHOLDER,
        "for",
        "training",
    ]
    f = sentence_features(text, RuleTagger())
    assert f.length_tokens == 9 and f.ref_index == 7
    assert f.location_ratio == pytest.approx(7 / 9)
    assert (f.word_before, f.tag_before, f.word_after, f.tag_after) == ("use", "VBP", "for", "IN")
    assert pos_class(f.tag_before) == "verb" and pos_class(f.tag_after) == "preposition"
    assert pos_class("WP$") == "others" and pos_class(".") == "others"
    end = sentence_features("This was shown before <REF>.", RuleTagger())
    assert end.word_after is None and location_class(num(end.location_ratio)) == "last"
    assert [location_class(x) for x in (0.0, 0.33, 1 / 3, 0.5, 2 / 3, 0.7)] == [
        "first",
        "first",
        "middle",
        "middle",
        "middle",
        "last",
    ]


def test_deciles_and_year_groups_by_hand() -> None:
    values = list(range(1, 21))  # 1..20: edges at 2.9, 4.8, ..., 18.1
    edges = deciles(values)
    assert edges[0] == pytest.approx(2.9) and edges[-1] == pytest.approx(18.1)
    assert [decile_of(v, edges) for v in (1, 2, 3, 10, 11, 19, 20)] == [0, 0, 1, 4, 5, 9, 9]
    assert [year_group(y) for y in (1995, 1996, 2000, 2001, 2020, 2021, None)] == [
        None,
        "1996-2000",
        "1996-2000",
        "2001-2005",
        "2016-2020",
        None,
        None,
    ]


@pytest.fixture
def loaded(
    graph_env: str, embedded_server: EmbeddedServer, tmp_path: Path
) -> Iterator[FalkorDBStore]:
    files = write_world(generate(400, seed=5, full_text_share=0.8), tmp_path / "world")
    cli_ok(
        [
            "load",
            "s2",
            "--papers",
            str(files["papers"]),
            "--citations",
            str(files["citations"]),
            "--s2orc",
            str(files["s2orc"]),
        ]
    )
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    yield st
    st.close()


def _examples(store: FalkorDBStore) -> list[tuple[str, str, str]]:
    rows = store.run(
        "MATCH (c:CitationContext)-[:IN_DATASET]->(d:DiagnosticDataset) "
        "RETURN d.name AS d, c.diag_class AS cls, c.sample_id AS s ORDER BY d, cls, s",
        {},
    )
    return [(r["d"], r["cls"], r["s"]) for r in rows]


def test_build_store_reproduce_and_run(loaded: FalkorDBStore, tmp_path: Path) -> None:
    out = cli_ok(
        [
            "bench",
            "build",
            "citerec-diagnostics",
            "--per-class",
            "8",
            "--seed",
            "1",
            "--tagger",
            "rules",
            "--format",
            "json",
        ]
    )
    rows = json.loads(out.strip().splitlines()[-1])
    by_ds: dict[str, dict[str, Any]] = {}
    for r in rows:
        by_ds.setdefault(r["dataset"], {})[r["class"]] = r["examples"]
    assert set(by_ds["length"]) <= {"short", "medium", "long"} and len(by_ds["length"]) == 3
    assert set(by_ds["location"]) == {"first", "middle", "last"}
    assert set(by_ds["intent"]) <= {"background", "method", "result"}
    assert all(n <= 8 for classes in by_ds.values() for n in classes.values())
    assert set(by_ds["years"]) <= {"1996-2000", "2001-2005", "2006-2010", "2011-2015", "2016-2020"}

    ds = loaded.run("MATCH (d:DiagnosticDataset {id: 'diag:citebench/length'}) RETURN d", {})
    node = ds[0]["d"]
    cuts = json.loads(node["cuts"])
    assert {"mean", "std", "short_below", "long_above"} <= set(cuts["length"])
    assert node["seed"] == 1 and node["version"].startswith("v-") and node["tagger"] == "rules-v1"
    # the stored examples obey the rule they were sampled under
    check = loaded.run(
        "MATCH (c:CitationContext)-[:IN_DATASET]->(d:DiagnosticDataset) "
        "WHERE d.id = 'diag:citebench/location' "
        "RETURN c.length_class AS lc, c.location AS loc, c.diag_class AS cls",
        {},
    )
    assert check and all(r["lc"] == "medium" and r["loc"] == r["cls"] for r in check)

    first = _examples(loaded)
    cli_ok(
        [
            "bench",
            "build",
            "citerec-diagnostics",
            "--per-class",
            "8",
            "--seed",
            "1",
            "--tagger",
            "rules",
        ]
    )
    assert _examples(loaded) == first  # same seed, same graph: same examples
    cli_ok(
        [
            "bench",
            "build",
            "citerec-diagnostics",
            "--per-class",
            "8",
            "--seed",
            "2",
            "--tagger",
            "rules",
        ]
    )
    assert _examples(loaded) != first and len(_examples(loaded)) == len(first)

    run = run_task(
        load_task("citerec"),
        loaded,
        AnswerSource.ranker("bm25"),
        {"dataset": "citebench/location", "split": "all"},
        record_in_graph=False,
    )
    assert set(run.result.classes) == {"location:first", "location:middle", "location:last"}
    assert 0.0 <= num(run.result.aggregate["Recall@10"]) <= 1.0


def test_report_draws_per_class_charts(loaded: FalkorDBStore, tmp_path: Path) -> None:
    from scholarkg.benchmark.report import write_report

    cli_ok(["bench", "build", "citerec-diagnostics", "--per-class", "6", "--tagger", "rules"])
    task = load_task("citerec")
    runs = [
        run_task(
            task,
            loaded,
            AnswerSource.ranker(name),
            {
                "dataset": "citebench/length",
                "split": "all",
                "projection_cache": str(tmp_path / "proj"),
            },
            runs_dir=tmp_path / "runs",
            record_in_graph=False,
        ).record
        for name in ("bm25", "hybrid")
    ]
    files = write_report(runs, tmp_path / "report", n_resamples=200)
    names = {p.name for p in files}
    assert {"report.md", "report.html", "report.json"} <= names
    charts = [n for n in names if n.endswith(".png") and "length" in n]
    assert any("recall-10" in n for n in charts) and any("mrr-10" in n for n in charts), names
    html = (tmp_path / "report" / "report.html").read_text()
    assert "Recall@10 per class (length)" in html


def test_tagger_choice_falls_back_offline() -> None:
    from scholarkg.benchmark.tasks.citerec.textfeatures import NltkTagger, load_tagger
    from scholarkg.errors import ConfigError

    assert load_tagger("rules").name == "rules-v1"
    try:
        NltkTagger()
        nltk_ok = True
    except (ImportError, LookupError):
        nltk_ok = False
    auto = load_tagger("auto")
    assert auto.name == ("nltk-perceptron" if nltk_ok else "rules-v1")
    if not nltk_ok:
        with pytest.raises(ConfigError, match="--tagger rules"):
            load_tagger("nltk")


def test_per_context_intent_wins_over_the_pair() -> None:
    from scholarkg.benchmark.tasks.citerec.diagnostics import context_intent

    row = {
        "intents": ["background", "methodology"],
        "contexts": ["Zorbic lattices fold under [?] pressure.", "We use the glorp method [?]."],
        "context_intents": '[["background"], ["methodology"]]',
    }
    assert context_intent("We use the glorp method <REF>.", row) == ["method"]
    assert context_intent("Zorbic lattices fold under <REF> pressure.", row) == ["background"]
    # no matching context: the pair's two intents (the caller skips multi-intent pairs)
    assert context_intent("Something else entirely <REF>.", row) == ["background", "method"]
    assert context_intent("x <REF>.", {"intents": ["result"]}) == ["result"]
