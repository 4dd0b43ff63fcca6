"""The execution sandbox: generated code runs isolated (no network, limits, throw-away copies).

Each hostile answer (endless loop, crash, memory bomb, a connection attempt to a listener of
ours on the loopback address) must come back as a failed task while the run goes on; the
reference answers must pass. The scripts are the synthetic repositories' ``run_check.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest

from scholarkg.benchmark.tasks.scireplicate import sandbox
from scholarkg.benchmark.tasks.scireplicate.sandbox import (
    SandboxConfig,
    check_isolation,
    execute_all,
    splice_function,
)
from scholarkg.benchmark.tasks.scireplicate.task import ScireplicateTask
from scholarkg.errors import NotSupported
from scholarkg.loaders.scireplicate_data import read_benchmark

# an interpreter the unprivileged sandbox user can execute (ours may live under /root)
PYTHON = "/usr/bin/python3"


def _isolation_available() -> str | None:
    if not Path(PYTHON).exists():
        return f"{PYTHON} missing"
    try:
        check_isolation("nobody" if os.geteuid() == 0 else "current", PYTHON)
    except NotSupported as err:
        return str(err)
    return None


REASON = _isolation_available()
needs_sandbox = pytest.mark.skipif(REASON is not None, reason=f"no sandbox here: {REASON}")
USER: Literal["nobody", "current"] = "nobody" if os.geteuid() == 0 else "current"


def _sandbox_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("scirep-sandbox-*")}


@pytest.fixture
def own_tempdir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temp root of this test's own, so the sandbox copies it counts are its own: the
    default suite runs on two xdist workers, whose sandbox tests share /tmp. World-readable
    (0755) like /tmp, because the sandbox user (``nobody`` under root) must reach it."""
    root = Path(tempfile.mkdtemp(prefix="scirep-test-tmp-"))
    root.chmod(0o755)
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@needs_sandbox
def test_hostile_answers_fail_and_the_run_goes_on(
    synthetic_bench: Path, tmp_path: Path, own_tempdir: Path
) -> None:
    specs = [t for p in read_benchmark(synthetic_bench) for t in p.tasks]
    assert len(specs) == 8
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    hostile = {
        1: "while True:\n    pass\n",
        2: "raise RuntimeError('boom')\n",
        3: "hog = []\nwhile True:\n    hog.append(bytearray(50_000_000))\n",
        4: f"import socket\nc = socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
        "c.sendall(b'leak')\nreturn 0.0\n",
        5: "return -12345.0\n",
    }
    codes: dict[str, str | None] = {}
    for i, spec in enumerate(specs):
        codes[spec.uid] = hostile.get(i, spec.reference_body)
    codes[specs[6].uid] = None  # no answer
    codes[specs[7].uid] = spec_def = specs[7].reference_code  # a whole def also works
    assert spec_def.lstrip().startswith("def ")
    before = _sandbox_dirs()
    config = SandboxConfig(timeout=4.0, memory_mb=256, python=PYTHON, user=USER)
    report = execute_all(specs, codes, synthetic_bench.parent / "repos", config)
    status = {uid: (t.status, t.reason) for uid, t in report.tasks.items()}
    got = [report.tasks[s.uid].status for s in specs]
    assert got == ["passed", "timeout", "crash", "crash", "crash", "failed", "failed", "passed"]
    assert "RuntimeError" in status[specs[2].uid][1]
    assert "MemoryError" in status[specs[3].uid][1]
    assert "OSError" in status[specs[4].uid][1] or "unreachable" in status[specs[4].uid][1]
    with pytest.raises(BlockingIOError):  # nothing ever reached our loopback listener
        listener.accept()
    listener.close()
    killed = report.tasks[specs[1].uid].generated
    assert killed is not None and killed.seconds < 15  # killed at the timeout
    assert report.outcomes()[specs[0].uid] is True and report.outcomes()[specs[1].uid] is False
    assert _sandbox_dirs() == before  # throw-away copies are gone
    # the repository on disk is untouched by the runs
    model = synthetic_bench.parent / "repos" / read_benchmark(synthetic_bench)[0].project_path
    assert (model / "model.py").read_text() == specs[0].ori_python_file


@needs_sandbox
def test_execute_option_gives_exec_acc(synthetic_bench: Path, tmp_path: Path) -> None:
    specs = [t for p in read_benchmark(synthetic_bench) for t in p.tasks]
    pred = tmp_path / "p.jsonl"
    with pred.open("w") as fh:
        for i, t in enumerate(specs):
            code = t.reference_body if i < 2 else "raise SystemExit(3)\n"
            fh.write(
                json.dumps({"paper_id": t.paper_index, "task_id": t.task_index, "code": code})
                + "\n"
            )
    options = {
        "judge": "identity",
        "execute": True,
        "python": PYTHON,
        "exec_user": USER,
        "repos_dir": synthetic_bench.parent / "repos",
        "exec_timeout": 20,
    }
    result = ScireplicateTask().score_files(synthetic_bench, pred, options)
    assert result.aggregate["exec_acc"] == pytest.approx(2 / 8)
    assert [result.per_instance[s.uid]["exec"] for s in specs] == [1.0, 1.0] + [0.0] * 6


def test_exec_without_repositories_is_unavailable(synthetic_bench: Path, tmp_path: Path) -> None:
    specs = [t for p in read_benchmark(synthetic_bench) for t in p.tasks]
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"paper_id": 0, "task_id": 0, "code": specs[0].reference_body}))
    result = ScireplicateTask().score_files(
        synthetic_bench, pred, {"judge": "identity", "execute": True, "repos_dir": None}
    )
    assert result.aggregate["exec_acc"] is None  # unavailable, never 0
    assert result.per_instance[specs[0].uid]["exec"] is None


def test_no_isolation_means_no_run(monkeypatch: pytest.MonkeyPatch, synthetic_bench: Path) -> None:
    """Without unshare the sandbox refuses before running anything (no networked fallback)."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    sandbox.check_isolation.cache_clear()
    specs = [t for p in read_benchmark(synthetic_bench) for t in p.tasks]
    marker = synthetic_bench.parent / "ran.txt"
    codes = {s.uid: f"open({str(marker)!r}, 'w').write('x')\nreturn 0.0\n" for s in specs}
    try:
        with pytest.raises(NotSupported, match="no fallback to networked execution"):
            execute_all(
                specs, codes, synthetic_bench.parent / "repos", SandboxConfig(python=PYTHON)
            )
    finally:
        sandbox.check_isolation.cache_clear()
    assert not marker.exists()


def test_splice_replaces_function_in_place(synthetic_bench: Path) -> None:
    spec = read_benchmark(synthetic_bench)[0].tasks[1]
    spliced = splice_function(spec, "return 42.0\n").split("\n")
    original = spec.ori_python_file.split("\n")
    start, end = spec.signature_position[0], spec.body_position[1]
    assert spliced[: start - 1] == original[: start - 1]
    assert spliced[start - 1] == original[start - 1]  # the signature line itself
    assert spliced[start].strip() == "return 42.0" and spliced[start].startswith(
        " " * 4 * spec.indent
    )
    assert spliced[start + 1 :] == original[end:]


@needs_sandbox
def test_a_detached_child_does_not_outlive_the_run(synthetic_bench: Path) -> None:
    """setsid + fork escapes a process group, not the run's PID namespace."""
    import time
    import uuid

    marker = Path(tempfile.gettempdir()) / f"scirep-escape-{uuid.uuid4().hex}"
    spec = read_benchmark(synthetic_bench)[0].tasks[0]
    code = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(2)\n"
        f"        open({str(marker)!r}, 'w').write('escaped')\n"
        "    os._exit(0)\n"
        "time.sleep(30)\n"
        "return 0.0\n"
    )
    config = SandboxConfig(timeout=1.0, memory_mb=256, python=PYTHON, user=USER)
    try:
        report = execute_all([spec], {spec.uid: code}, synthetic_bench.parent / "repos", config)
        assert report.tasks[spec.uid].status == "timeout"
        time.sleep(3)
        assert not marker.exists()
    finally:
        marker.unlink(missing_ok=True)
