"""The ReAct generation loop end to end: a scripted loopback OpenAI server, our client, the
graph look-ups, the stored generated implementation, and the score of the run.

A second test drives the real local SmolLM2 server (``model`` mark): protocol and storage, not
quality (a 135M model does not write these functions).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok
from _fakes import num

from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.benchmark.tasks.scireplicate.agent import final_code
from scholarkg.benchmark.tasks.scireplicate.lookups import MASK
from scholarkg.benchmark.tasks.scireplicate.task import ScireplicateTask
from scholarkg.commands.common import store_session
from scholarkg.loaders.scireplicate_data import read_benchmark
from scholarkg.services.llm import LLMClient


class Scripted(BaseHTTPRequestHandler):
    """Replies by turn: look up a section, look up the file, then answer with ``answer``."""

    requests: list[dict[str, Any]]
    answers: dict[str, str]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, body: dict[str, Any]) -> None:
        raw = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self._send({"object": "list", "data": [{"id": "scripted"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append(body)
        messages = body["messages"]
        task_text = messages[1]["content"]
        turn = sum(m["role"] == "assistant" for m in messages)
        if turn == 0:
            text = "Thought: read the method.\nAction: SearchSection[sec:method]"
        elif turn == 1:
            text = "Thought: see the file.\nAction: SearchFile[model.py]\nObservation: fake"
        else:
            name = next(n for n in self.answers if f"`{n}`" in task_text)
            text = f"Thought: done.\nFinal Answer:\n```python\n{self.answers[name]}```"
        self._send(
            {
                "model": "scripted",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5},
            }
        )


@pytest.fixture
def scripted_server(synthetic_bench: Path) -> Iterator[tuple[str, type[Scripted]]]:
    answers = {
        t.namespace: t.reference_body for p in read_benchmark(synthetic_bench) for t in p.tasks
    }
    handler = type("H", (Scripted,), {"requests": [], "answers": answers})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", handler
    httpd.shutdown()
    httpd.server_close()


def test_react_loop_with_scripted_server(
    graph_env: str,
    synthetic_bench: Path,
    scripted_server: tuple[str, type[Scripted]],
    tmp_path: Path,
) -> None:
    root = synthetic_bench.parent
    cli_ok(
        [
            "load",
            "scireplicate",
            str(synthetic_bench),
            "--papers-dir",
            str(root / "papers"),
            "--repos-dir",
            str(root / "repos"),
        ]
    )
    url, handler = scripted_server
    task = ScireplicateTask()
    with LLMClient(url, None, max_retries=0) as client, store_session() as store:
        run = run_task(
            task,
            store,
            AnswerSource.model(client),
            {"judge": "identity"},
            runs_dir=tmp_path / "runs",
        )
        generation = run.answers.extra["generation_id"]
        stored = store.run(
            "MATCH (i:Implementation {run_id: $g})-[:IMPLEMENTS]->(t:CodeTask) "
            "OPTIONAL MATCH (i)-[:HAS_STEP]->(s:ReasoningStep) "
            "RETURN t.task_id AS task, i.code AS code, i.reasoning AS reasoning, "
            "count(s) AS steps ORDER BY task",
            {"g": generation},
        )
    specs = [t for p in read_benchmark(synthetic_bench) for t in p.tasks]
    # every task: 3 model calls (two look-ups, then the answer)
    assert len(handler.requests) == 3 * len(specs)
    # observations came from the graph: the Method section, and the masked target file
    second = handler.requests[1]["messages"][-1]["content"]
    third = handler.requests[2]["messages"][-1]["content"]
    assert second.startswith("Observation: [Method]")
    assert third.startswith("Observation: # model.py") and MASK in third
    assert "fake" not in third and handler.requests[0]["stop"] == ["Observation:"]
    # answers are the scripted reference bodies, so the run scores as the oracle does
    assert run.result.aggregate["codebleu"] == pytest.approx(1.0)
    assert run.result.aggregate["rg_acc"] == pytest.approx(1.0)
    assert run.answers.extra["actions"][specs[0].uid] == [
        "SearchSection[sec:method]",
        "SearchFile[model.py]",
    ]
    # stored per run: code, transcript (reasoning) and the reasoning steps of the answer
    assert len(stored) == len(specs)
    by_task = {r["task"]: r for r in stored}
    first = by_task[f"{specs[0].paper_index}:{specs[0].task_index}"]
    assert first["code"] == specs[0].reference_body.strip("\n") + "\n"
    assert first["steps"] == specs[0].reference_body.count("[End Snippet")
    assert json.loads(first["reasoning"])[-1]["role"] == "assistant"
    assert run.record.models["llm"] == "scripted"


def test_final_code_forms() -> None:
    assert final_code("Final Answer:\n```python\nx = 1\n```\nbye") == "x = 1\n"
    assert final_code("Final Answer: return 3") == "return 3\n"


@pytest.mark.model
def test_react_loop_with_local_smollm2(
    graph_env: str, synthetic_bench: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from scholarkg.services.llm_server import start_local_server

    cli_ok(["load", "scireplicate", str(synthetic_bench)])
    task = ScireplicateTask()
    # reuse the converted model between sessions where pytest's cache is on (as test_llm_server)
    pytest_cache = getattr(request.config, "cache", None)
    cache = Path(pytest_cache.mkdir("scholarkg-llm")) if pytest_cache else tmp_path / "llm"
    with (
        start_local_server(cache_dir=cache, max_new_tokens=16) as srv,
        LLMClient(srv.base_url, None, timeout=300, max_retries=0) as client,
        store_session() as store,
    ):
        run = run_task(
            task, store, AnswerSource.model(client, max_tokens=16),
            {"judge": "identity", "max_turns": 1}, limit=1,
        )  # fmt: skip
        rows = store.run("MATCH (i:Implementation {kind: 'generated'}) RETURN i.code AS code", {})
    assert len(rows) == 1 and isinstance(rows[0]["code"], str)
    assert run.result.aggregate["codebleu"] is not None
    assert run.answers.extra["usage"]["requests"] >= 2


def test_model_answers_are_kept_and_rescore_exactly(
    graph_env: str,
    synthetic_bench: Path,
    scripted_server: tuple[str, type[Scripted]],
    tmp_path: Path,
) -> None:
    """A model run writes ``predictions.jsonl`` (the ``{"paper_id", "task_id", "code"}`` layout
    ``bench score`` reads, with the final reply as ``raw``) and keeps it in the run record;
    ``bench score --data Data.json`` on it gives the run's metrics exactly."""
    root = synthetic_bench.parent
    cli_ok(["load", "scireplicate", str(synthetic_bench), "--papers-dir", str(root / "papers"),
            "--repos-dir", str(root / "repos")])  # fmt: skip
    url, handler = scripted_server
    specs = [t for p in read_benchmark(synthetic_bench) for t in p.tasks]
    handler.answers[specs[0].namespace] = "    return None\n"  # one wrong answer
    task = ScireplicateTask()
    with LLMClient(url, None, max_retries=0) as client, store_session() as store:
        run = run_task(task, store, AnswerSource.model(client), {"judge": "identity"},
                       runs_dir=tmp_path / "runs", out_dir=tmp_path / "out")  # fmt: skip
    path = tmp_path / "out" / "predictions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(rows) == len(specs) and {(r["paper_id"], r["task_id"]) for r in rows} == {
        s.key for s in specs
    }
    first = next(r for r in rows if (r["paper_id"], r["task_id"]) == specs[0].key)
    assert first["code"] == "    return None\n" and "Final Answer" in first["raw"]
    assert all(r["model"] == "scripted" for r in rows)
    assert run.record.predictions == rows
    assert num(run.result.aggregate["codebleu"]) < 1.0
    out = cli_ok(["bench", "score", "scireplicate", "--data", str(synthetic_bench),
                  "--predictions", str(path), "--judge", "identity", "--no-record",
                  "-f", "json"])  # fmt: skip
    payload = json.loads(out)
    assert payload["model"] == "scripted"
    assert payload["aggregate"] == run.result.aggregate
