"""The side files of the DORIS-MAE authors' repository (layouts reproduced, text synthetic).

The repository carries ``queries.txt``, ``subquery-2.txt``, ``best_candidates.txt``, ranking
pickles (in its history) and Git LFS pointers, not the dataset JSON (Zenodo). Before, each
gave ``invalid JSON near byte 65,536`` after "everything read before the error is stored".
"""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders.dorismae import DorisReader
from scholarkg.loaders.dorismae_release import (
    classify,
    parse_queries_txt,
    ranking_to_trec,
    read_pickle,
)
from scholarkg.store.falkordb.store import FalkorDBStore

RULE = "=" * 50
QUERIES_TXT = f"""Query: 0

I study zorb glimmering in small graphs.
I need a method that scales.

Aspects:

1. The document is about zorb glimmering.
\ta. The method should glimmer.
\tb. The method should handle zorbs.

2. The method should scale to large graphs.


{RULE}
Query: 1

Find surveys of frobnication.

Aspects:

1. The document is a survey.

2. The document covers frobnication.
\ta. It should define frobnication.


{RULE}
"""


def _release(tmp: Path) -> Path:
    """A checkout-shaped folder: every side file, a ranking in history's place, an LFS pointer."""
    root = tmp / "Doris-Mae-Dataset"
    (root / "benchmarking/dataset/rankings/query").mkdir(parents=True)
    (root / "benchmarking/dataset/rankings/aspect").mkdir(parents=True)
    (root / "benchmarking/dataset/embeddings/subquery_2").mkdir(parents=True)
    (root / "queries.txt").write_text(QUERIES_TXT, encoding="utf-8")
    (root / "subquery-2.txt").write_text(
        f"Subquery: 0\nI study zorb glimmering.\n{'=' * 70}\n", encoding="utf-8"
    )
    (root / "best_candidates.txt").write_text(
        "Query id: 1\nFind surveys.\n\nBest Candidate ID: 7, Best Candidate Averaged Relevance "
        f"Score: 1.5\n\nBest Candidate:\nA survey.\n{'=' * 75}\n",
        encoding="utf-8",
    )
    rankings = [{"index_rank": [5, 3, 9, 3]}, {"index_rank": np.array([2, 8])}]
    for level in ("query", "aspect"):
        path = root / f"benchmarking/dataset/rankings/{level}/ranking_bm25_x_mean_max.pickle"
        path.write_bytes(pickle.dumps(rankings))
    (root / "benchmarking/dataset/embeddings/subquery_2/embedding_x.pickle").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 107967844\n"
    )
    return root


def test_each_side_file_is_recognised_by_its_content(tmp_path: Path) -> None:
    root = _release(tmp_path)
    renamed = tmp_path / "q.dat"
    renamed.write_text(QUERIES_TXT, encoding="utf-8")
    assert classify(renamed) == "queries"
    assert classify(root / "subquery-2.txt") == "subqueries"
    assert classify(root / "best_candidates.txt") == "best_candidates"
    emb = root / "benchmarking/dataset/embeddings/subquery_2/embedding_x.pickle"
    assert classify(emb) == "lfs_pointer"


def test_queries_txt_loads_queries_aspects_and_sub_aspects(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    root = _release(tmp_path)
    out = " ".join(cli_ok(["load", "dorismae", str(root / "queries.txt")]).split())
    assert "Zenodo: https://doi.org/10.5281/zenodo.8299749" in out
    g = FalkorDBStore(store.db, graph_env)
    assert g.counts().nodes == {"Query": 2, "Aspect": 7}
    assert g.counts().relationships == {"HAS_ASPECT": 4, "HAS_SUB_ASPECT": 3, "SUB_ASPECT_OF": 3}
    rows = g.run(
        "MATCH (q:Query {qid: '0'})-[:HAS_SUB_ASPECT]->(s)-[:SUB_ASPECT_OF]->(a) "
        "RETURN q.id AS query, a.text AS aspect, s.text AS sub ORDER BY s.aspect_id"
    )
    assert rows[0] == {
        "query": "query:dorismae:0",  # the dataset's Query id: a dataset load merges onto it
        "aspect": "The document is about zorb glimmering.",
        "sub": "The method should glimmer.",
    }


def test_a_malformed_queries_txt_block_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "queries.txt"
    path.write_text(QUERIES_TXT.replace("2. The method should scale", "2) The method"), "utf-8")
    with pytest.raises(InputError, match=r"expected '<n>\. aspect'") as err:
        list(parse_queries_txt(path))
    assert (err.value.line, err.value.field) == (12, "Aspects")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("subquery-2.txt", "--subqueries subquery-2.txt"),
        ("best_candidates.txt", "one best abstract per query"),
        ("benchmarking/dataset/embeddings/subquery_2/embedding_x.pickle", "git lfs pull"),
    ],
)
def test_side_files_alone_are_refused_naming_what_is_needed(
    graph_env: str, tmp_path: Path, name: str, says: str
) -> None:
    path = _release(tmp_path) / name
    result = runner.invoke(app, ["load", "dorismae", str(path)])
    assert isinstance(result.exception, InputError)
    assert says in str(result.exception) and result.exception.path == str(path)
    if "lfs" not in says:
        assert "zenodo.8299749" in str(result.exception)
    assert "near byte" not in str(result.exception)


def test_a_checkout_loads_what_it_holds_and_converts_published_rankings(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    root = _release(tmp_path)
    runs = tmp_path / "runs"
    out = " ".join(cli_ok(["load", "dorismae", str(root), "--runs-out", str(runs)]).split())
    assert "skipped best_candidates.txt" in out and "git lfs pull" in out
    assert "1 sub-query/aspect-level ranking file(s) not converted" in out
    g = FalkorDBStore(store.db, graph_env)
    assert g.counts().nodes["Query"] == 2
    lines = (runs / "bm25_x_mean_max.trec").read_text().splitlines()
    assert lines == [
        "0 Q0 5 1 3 bm25_x_mean_max",
        "0 Q0 3 2 2 bm25_x_mean_max",  # the repeated id kept once, at its best rank
        "0 Q0 9 3 1 bm25_x_mean_max",
        "1 Q0 2 1 2 bm25_x_mean_max",
        "1 Q0 8 2 1 bm25_x_mean_max",
    ]


class _Evil:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch pwned",))


def test_a_malicious_pickle_is_refused_and_never_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "rankings" / "query" / "ranking_evil.pickle"
    path.parent.mkdir(parents=True)
    path.write_bytes(pickle.dumps([{"index_rank": [1, 2]}, _Evil()]))
    with pytest.raises(InputError, match=r"refused to load posix\.system"):
        read_pickle(path)
    with pytest.raises(InputError, match="refused"):
        ranking_to_trec(path, tmp_path / "runs")
    assert not (tmp_path / "pwned").exists()
    path.write_bytes(pickle.dumps([{"index_rank": np.arange(3)}]))
    assert read_pickle(path)[0]["index_rank"].tolist() == [0, 1, 2]


def test_json_errors_name_line_and_column_not_the_read_buffer(
    graph_env: str, tmp_path: Path
) -> None:
    """A syntax error past the first 64 KiB: its real line and column; nothing stored said so."""
    rows = ",\n".join(
        json.dumps({"original_abstract": f"Abstract {i} " + "zorb " * 10, "title": f"T{i}"})
        for i in range(3000)
    )
    path = tmp_path / "DORIS-MAE_dataset_v1.json"
    path.write_text('{"Corpus": [\n' + rows + ',\n{"original_abstract": "x",, "y": 1}\n]}')
    assert path.stat().st_size > 3 * 65_536
    with pytest.raises(InputError) as err:
        list(DorisReader(path).records())
    assert err.value.line == 3002 and "at column 27 " in str(err.value)  # the second comma
    assert "after $.Corpus[2999]" in str(err.value) and "near byte" not in str(err.value)

    bad = tmp_path / "bad.json"
    bad.write_text('{"Query": [{"query_text": "\\udfff"}], "Corpus": []}')
    result = runner.invoke(app, ["load", "dorismae", str(bad)])
    assert isinstance(result.exception, InputError) and result.exception.line == 1
    assert "lone UTF-16 surrogate" in str(result.exception)
    said = " ".join(result.output.split())
    assert "nothing of this file is stored" in said and "everything read" not in said
