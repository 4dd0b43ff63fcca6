"""RPLM and LGPLM through a real HTTP server on loopback that speaks the OpenAI protocol.

The server is ``http.server`` in a thread (not a mock of our client): our ``LLMClient`` sends
real requests, the server records them and answers from canned texts keyed by the query the
prompt contains. So these tests check the whole path — prompts from the graph, the paper's
generation settings on the wire, answers back, scores, run records and ``ANSWERED`` edges.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _fakes import CANNED_MODEL, CannedServer

from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.tasks.legobench.lgplm import (
    RELEASE_STOP,
    LGPLMSettings,
    build_lgplm_instances,
)
from scholarkg.benchmark.tasks.legobench.rplm import build_rplm_instances
from scholarkg.benchmark.tasks.legobench.run import demo_llm_tasks, run_lgplm, run_rplm
from scholarkg.services.llm import LLMClient
from scholarkg.store.falkordb.store import FalkorDBStore

MODEL = CANNED_MODEL


def _by_query(answers: dict[str, str]) -> Callable[[str], str]:
    """Answer with the text whose key (a query fragment) occurs in the prompt."""

    def answer(prompt: str) -> str:
        hits = [text for key, text in answers.items() if key in prompt]
        assert len(hits) == 1, "each prompt names exactly one leaderboard"
        return hits[0]

    return answer


def _key(inst: Any) -> str:
    return f"task on dataset {inst.dataset} using metric {inst.metric}"


def test_rplm_through_an_openai_server(wstore: FalkorDBStore, tmp_path: Path) -> None:
    instances = build_rplm_instances(wstore, seed=9, limit=4)
    canned = {_key(i): "\n".join(i.gt) for i in instances}
    last = instances[-1]
    canned[_key(last)] = "1. " + "\n2. ".join(reversed(last.gt))  # numbered and reversed
    registry = RunRegistry(tmp_path / "runs")
    with CannedServer(_by_query(canned)) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_rplm(wstore, client, seed=9, limit=4, registry=registry)
    assert [p for p, _ in srv.requests] == ["/v1/completions"] * 4
    sent = sorted((b["prompt"] for _, b in srv.requests), key=str)
    assert sent == sorted(i.prompt for i in instances)
    for _, body in srv.requests:  # the paper's settings, on the wire
        assert body["temperature"] == 0.1 and body["top_p"] == 0.95
        assert body["max_tokens"] == 4096 and body["stop"] == ["Question:", "\n\n\n\n"]
        assert body["model"] == MODEL
    # 4 complete; 3 exact; taus 1, 1, 1, -1; CP 100, 100, 100, 0
    assert run.metrics["CIS"] == pytest.approx(100.0)
    assert run.metrics["BEM"] == pytest.approx(0.75)
    assert run.metrics["KTau"] == pytest.approx(0.5)
    assert run.metrics["CP"] == pytest.approx(75.0)
    assert run.models == {"llm": MODEL}
    extra = run.config["answer"]["extra"]
    assert extra["source"] == "model" and extra["usage"]["requests"] == 4
    assert registry.load(run.id).metrics == run.metrics
    texts = wstore.run(
        "MATCH (:Run {id: $id})-[a:ANSWERED]->(lb:Leaderboard) RETURN lb.id AS id, a.text AS t",
        {"id": run.id},
    )
    assert {r["id"]: r["t"] for r in texts} == {i.id: canned[_key(i)] for i in instances}


def test_rplm_reruns_hit_the_response_cache(wstore: FalkorDBStore, tmp_path: Path) -> None:
    instances = build_rplm_instances(wstore, seed=9, limit=2)
    canned = {_key(i): "\n".join(i.gt) for i in instances}
    with CannedServer(_by_query(canned)) as srv:
        for _ in range(2):
            with LLMClient(srv.base_url, cache=tmp_path / "cache.sqlite") as client:
                run = run_rplm(wstore, client, seed=9, limit=2, record_in_graph=False)
        assert len(srv.requests) == 2  # the second run was answered from the cache
    assert run.metrics["KTau"] == pytest.approx(1.0)


def test_lgplm_through_an_openai_server_in_chat_mode(wstore: FalkorDBStore, world: Any) -> None:
    instances = build_lgplm_instances(wstore, limit=3)
    canned = {}
    for inst in instances:
        rows = "\n".join(f"| {m} | {s:.2f} |" for m, s in inst.gold[:2])
        canned[_key(inst)] = f"| Method | {inst.metric} |\n|---|---|\n{rows}\n| Madeupnet | 1.00 |"
    settings = LGPLMSettings(mode="chat")
    with CannedServer(_by_query(canned)) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_lgplm(wstore, client, limit=3, settings=settings)
    assert [p for p, _ in srv.requests] == ["/v1/chat/completions"] * 3
    for _, body in srv.requests:
        assert body["max_tokens"] == 1600 and body["stop"] == list(RELEASE_STOP)
        assert body["messages"][0]["role"] == "user"
    n_gold = sum(len(i.gold) for i in instances)
    assert run.metrics["MR"] == pytest.approx(100 * 6 / n_gold)
    assert run.metrics["MP"] == pytest.approx(100 * 6 / 9)
    assert run.metrics["SP_correct"] == pytest.approx(100.0)


def test_demo_entry_point(wstore: FalkorDBStore) -> None:
    def answer(prompt: str) -> str:
        return "| Method | score |\n|---|---|\n| Anything | 1.0 |" if "Excerpt" in prompt else "x"

    with CannedServer(answer) as srv:
        runs = demo_llm_tasks(wstore, base_url=srv.base_url, n_instances=3)
    assert [r.task for r in runs] == ["legobench-rplm", "legobench-lgplm"]
    assert runs[0].config["n_instances"] == 3 and runs[1].config["n_instances"] == 1
    assert {b["max_tokens"] for _, b in srv.requests} == {64}
    assert runs[0].metrics["CIS"] == 0.0  # "x" names no title
    assert runs[1].config["answer"]["extra"]["usage"]["requests"] == 1


# --------------------------------------------------------------------------- CLI functions


@pytest.fixture
def cli_graph(
    settings: Any, store: FalkorDBStore, graph_name: str, world: Any, world_mod: Any
) -> Iterator[FalkorDBStore]:
    """The world in this test's graph, and the CLI's settings pointed at that graph."""
    from scholarkg.commands.common import set_global_options

    world_mod.load_world(store, world)
    set_global_options(graph=graph_name)
    try:
        yield store
    finally:
        set_global_options()


def _cli() -> Any:
    from scholarkg.commands.bench import app

    return app


def test_cli_import_predictions(cli_graph: FalkorDBStore, settings: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scholarkg.errors import InputError, TaskNotFound

    instances = build_rplm_instances(cli_graph, limit=3)
    path = tmp_path / "answers.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i.id, "response": "\n".join(i.gt)}) + "\n" for i in instances)
    )
    runner = CliRunner()
    res = runner.invoke(
        _cli(), ["import-predictions", "legobench-rplm", str(path), "--limit", "3", "-f", "json"]
    )
    assert res.exit_code == 0, res.output
    run = json.loads(res.stdout)
    assert run["metrics"]["CIS"] == 100.0 and run["metrics"]["KTau"] == 1.0
    assert (settings.runs_dir / f"{run['run_id']}.json").is_file()
    table = runner.invoke(
        _cli(), ["import-predictions", "legobench-rplm", str(path), "--limit", "3", "--no-record"]
    )
    assert table.exit_code == 0 and "(not recorded)" in table.stdout and "CIS" in table.stdout
    bad = runner.invoke(_cli(), ["import-predictions", "aaar", str(path)])
    assert isinstance(bad.exception, TaskNotFound) and "legobench-rplm" in str(bad.exception)
    bad = runner.invoke(_cli(), ["import-predictions", "legobench-rpg", str(path)])
    assert isinstance(bad.exception, InputError) and "cannot be answered by a predictions"


def test_cli_run_llm(cli_graph: FalkorDBStore, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    instances = build_rplm_instances(cli_graph, limit=2)
    canned = {_key(i): "\n".join(i.gt) for i in instances}
    with CannedServer(_by_query(canned)) as srv:
        res = CliRunner().invoke(
            _cli(),
            ["run", "legobench-rplm", "--base-url", srv.base_url, "--limit", "2",
             "--max-tokens", "32", "--no-cache", "-f", "json"],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    run = json.loads(res.stdout)
    assert run["metrics"]["BEM"] == 1.0 and run["answer"]["params"]["max_tokens"] == 32
    assert {b["max_tokens"] for _, b in srv.requests} == {32}


def test_usage_is_per_run_when_a_client_serves_several(wstore: FalkorDBStore) -> None:
    instances = build_rplm_instances(wstore, limit=2)
    canned = {_key(i): "\n".join(i.gt) for i in instances}
    with CannedServer(_by_query(canned)) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        first = run_rplm(wstore, client, limit=2, record_in_graph=False)
        second = run_rplm(wstore, client, limit=1, record_in_graph=False)
    first_usage = first.config["answer"]["extra"]["usage"]
    second_usage = second.config["answer"]["extra"]["usage"]
    assert first_usage["requests"] == 2
    assert second_usage["requests"] == 1
    assert second_usage["completion_tokens"] == 5  # the server reports 5 per answer
