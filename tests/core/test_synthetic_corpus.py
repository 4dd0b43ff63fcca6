"""The synthetic LEGOBench world: deterministic, in the real formats, and not trivial."""

from __future__ import annotations

import json
from pathlib import Path

from openpyxl import load_workbook
from scipy.stats import kendalltau

from scholarkg.loaders.apc import read_citations, read_comparisons
from scholarkg.synthetic.legobench_corpus import generate, write_corpus


def test_deterministic_for_a_seed() -> None:
    a, b = (
        generate(n_papers=200, n_leaderboards=10, seed=3),
        generate(n_papers=200, n_leaderboards=10, seed=3),
    )
    assert [p.title for p in a.papers] == [p.title for p in b.papers]
    assert a.citations == b.citations and a.comparisons == b.comparisons
    c = generate(n_papers=200, n_leaderboards=10, seed=4)
    assert [p.title for p in a.papers] != [p.title for p in c.papers]


def test_ground_truth_is_not_a_single_signal() -> None:
    corpus = generate(n_papers=1500, n_leaderboards=80, seed=11)
    papers = corpus.papers
    taus_date, exact_date = [], 0
    wrong_way = total_in_lb = 0
    for lb in corpus.leaderboards:
        assert len(lb.papers) >= 3
        scores = lb.scores
        if lb.higher_is_better:
            assert scores == sorted(scores, reverse=True)
        else:
            assert scores == sorted(scores)
        # newest-first is correlated with the truth but rarely equal to it
        by_date = sorted(lb.papers, key=lambda i: papers[i].date, reverse=True)
        exact_date += by_date == lb.papers
        gt_rank = {p: r for r, p in enumerate(lb.papers)}
        taus_date.append(kendalltau([gt_rank[p] for p in by_date], range(len(by_date))).statistic)
        members = set(lb.papers)
        for a, b, li in corpus.comparisons:
            if li == lb.index and a in members and b in members:
                total_in_lb += 1
                wrong_way += gt_rank[a] > gt_rank[b]
    mean_tau = sum(taus_date) / len(taus_date)
    assert 0.2 < mean_tau < 0.95, mean_tau  # informative, not decisive
    assert exact_date < 0.5 * len(corpus.leaderboards)
    assert 0 < wrong_way < 0.3 * total_in_lb  # some comparison edges point the wrong way
    off_leaderboard = sum(1 for c in corpus.comparisons if c[2] is None)
    assert off_leaderboard > 0.3 * len(corpus.comparisons)


def test_written_formats(tmp_path: Path) -> None:
    corpus = generate(n_papers=150, n_leaderboards=8, seed=5)
    files = write_corpus(corpus, tmp_path)
    first = json.loads(files["papers"].read_text().splitlines()[0])
    assert {"id", "arxiv_id", "title", "abstract", "date", "categories", "full_text"} <= set(first)
    assert files["citations"].read_text().splitlines()[0] == "start,end"
    # the edge lists are read back by the APC loader, one relationship per written edge
    assert len(list(read_citations(files["citations"]))) == len(corpus.citations)
    comparisons = list(read_comparisons(files["comparisons"]))
    assert len(comparisons) == len(corpus.comparisons)
    on_board = [c for c in comparisons if c.dataset is not None]
    assert 0 < len(on_board) < len(comparisons)  # off-leaderboard edges may be unlabelled
    assert {c.dataset for c in on_board} <= {lb.dataset for lb in corpus.leaderboards}
    tables = json.loads(files["evaluation_tables"].read_text())
    row = tables[0]["datasets"][0]["sota"]["rows"][0]
    assert {"model_name", "paper_title", "paper_url", "paper_date", "metrics"} <= set(row)
    wb = load_workbook(files["rplm"], read_only=True)
    ws = wb["Sheet1"]
    header = next(ws.iter_rows(values_only=True))
    assert header == (None, "instruction", "model_options", "GT")
    rows = list(ws.iter_rows(min_row=2, values_only=True))
    assert len(rows) == len(corpus.leaderboards)
    for _, instruction, options, gt in rows:
        assert "Query - Rank the performance of the following papers on the" in instruction
        assert sorted(options.split("\n")) == sorted(gt.split("\n"))
    gt_lines = [json.loads(line) for line in files["leaderboards"].read_text().splitlines()]
    assert len(gt_lines) == len(corpus.leaderboards)
    assert all(len(g["ranking"]) == len(g["scores"]) == len(g["methods"]) for g in gt_lines)
