"""Execution accuracy: run a task's script on the generated code, isolated, and compare outputs.

Generated code is untrusted, so it never runs in the scholarkg process. Per task:

1. copy the repository (``<repos_dir>/<project_path>``) into a throw-away directory, twice;
2. write ``ori_python_file`` into the first copy as is (the reference run) and, into the second,
   the file with lines ``signature_position[0]..body_position[1]`` replaced by the generated
   function at the recorded position (a body goes under the task's own signature);
3. run the task's ``script`` in each copy in a child process that is
   * in a **new network namespace** (``unshare --net`` from util-linux: only a loopback
     interface that is down, so no address, local or remote, is reachable) and a new PID
     namespace (nothing it starts survives it),
   * **another user** (``nobody``, when we are root) owning only the copy,
   * limited by ``setrlimit`` in the child before exec: address space (``RLIMIT_AS``), CPU
     seconds, file size, processes, no core dumps; plus a wall-clock timeout that kills the whole
     process group;
   * given a minimal environment (no API keys or tokens from ours) and ``HOME`` = the copy;
4. the task passes iff the generated run exits 0 and prints exactly what the reference run
   printed (stdout). A crash, timeout, memory error or network attempt is a failure.

If network isolation cannot be set up, :class:`~scholarkg.errors.NotSupported` is raised
before any generated code runs: there is no fallback to running with network access.

The released evaluation compares pickled return values with the authors' ``compare.py`` from
an archive that is not public (``xyzCS/SciReplicate-Bench:Evaluation.py``); comparing the script's
stdout is our
rule, stated as such. Without repositories or a script a task is *unavailable* (``None``) and
``exec_acc`` is null, never 0.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from scholarkg.benchmark.tasks.scireplicate.scoring import answer_function
from scholarkg.errors import InputError, NotSupported
from scholarkg.loaders.scireplicate_data import TaskSpec

log = logging.getLogger(__name__)

NOBODY = 65534
#: a new network namespace (no reachable address) and a new PID namespace whose init is the
#: script: when ``unshare`` is killed, ``--kill-child`` kills the script and the kernel kills
#: everything else in the namespace, so a child that ``setsid``s and forks cannot outlive it
NAMESPACES = ("--net", "--pid", "--fork", "--kill-child")
#: processes the sandbox user may have at once (fork bombs); root ignores this limit
MAX_PROCESSES = 256
#: bytes of each output stream kept for comparison and reports (the rest is cut by RLIMIT_FSIZE)
OUTPUT_LIMIT = 16 * 1024 * 1024
Status = Literal["passed", "failed", "crash", "timeout", "unavailable"]


@dataclass(frozen=True)
class SandboxConfig:
    """Limits of one script run. ``user``: ``nobody`` (drop to uid 65534; root only) or
    ``current`` (stay who we are; still no network and the same limits)."""

    timeout: float = 900.0
    memory_mb: int = 4096
    python: str = ""
    user: Literal["nobody", "current"] = "nobody"
    extra_args: tuple[str, ...] = ()

    def interpreter(self, environment: str | None = None) -> str:
        """``python`` with ``{env}`` replaced by the paper's environment name (35 conda envs)."""
        python = self.python or sys.executable
        return python.replace("{env}", environment or "")


@dataclass
class RunOutcome:
    """One isolated script run."""

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out


@dataclass
class TaskExecution:
    """A task's verdict with both runs (``None`` runs: not attempted)."""

    uid: str
    status: Status
    reason: str = ""
    reference: RunOutcome | None = None
    generated: RunOutcome | None = None

    @property
    def passed(self) -> bool | None:
        """True/False for the metric; None when the task could not be evaluated."""
        if self.status == "unavailable":
            return None
        return self.status == "passed"


@dataclass
class ExecutionReport:
    tasks: dict[str, TaskExecution] = field(default_factory=dict)

    def outcomes(self) -> dict[str, bool | None]:
        return {uid: t.passed for uid, t in self.tasks.items()}


# --------------------------------------------------------------------------- isolation


def _isolation_prefix(user: str) -> list[str]:
    unshare = shutil.which("unshare")
    if unshare is None:
        raise NotSupported(
            "execution needs 'unshare' (util-linux) for a network namespace; it is not on "
            "PATH, so generated code is not run (no fallback to networked execution)"
        )
    if os.geteuid() == 0:
        prefix = [unshare, *NAMESPACES]
        if user == "nobody":
            prefix += ["--setgid", str(NOBODY), "--setuid", str(NOBODY)]
        return [*prefix, "--"]
    if user == "nobody":
        raise NotSupported("--exec-user nobody needs root; use --exec-user current")
    return [unshare, "--user", "--map-root-user", *NAMESPACES, "--"]


@cache
def check_isolation(user: str = "nobody", python: str = "") -> list[str]:
    """The command prefix that isolates a run, after proving it works with ``python``.

    The probe runs the interpreter inside the namespace and checks that no network interface
    other than a down loopback exists. Any failure raises NotSupported naming the cause.
    """
    prefix = _isolation_prefix(user)
    interpreter = python or sys.executable
    probe = (
        "import socket\n"
        "names = [n for _, n in socket.if_nameindex()]\n"
        "assert names == ['lo'], names\n"
        "s = socket.socket()\n"
        "s.settimeout(1)\n"
        "try:\n    s.connect(('127.0.0.1', 9))\nexcept OSError as e:\n    print(e.errno)\n"
        "else:\n    raise SystemExit('loopback reachable')\n"
    )
    try:
        done = subprocess.run(
            [*prefix, interpreter, "-c", probe],
            capture_output=True,
            text=True,
            timeout=30,
            cwd="/",
            env=_child_env(Path("/")),
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise NotSupported(f"network isolation probe failed to start: {err}") from err
    if done.returncode != 0:
        hint = ""
        if user == "nobody" and ("Permission denied" in done.stderr or done.returncode == 126):
            hint = (
                f"; the interpreter {interpreter} is not executable by uid {NOBODY} (nobody): "
                "pass --python with an interpreter every user can run (e.g. /usr/bin/python3, "
                "or a conda env's python) or --exec-user current"
            )
        raise NotSupported(
            "cannot run code without network (unshare --net): "
            f"{done.stderr.strip()[-300:] or done.stdout.strip()}{hint}; generated code is not "
            "run (no fallback to networked execution)"
        )
    return prefix


def _child_env(workdir: Path) -> dict[str, str]:
    """A minimal environment: nothing of ours (API keys, tokens) reaches generated code."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir),
        "TMPDIR": str(workdir),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
    }


def _limits(memory_mb: int, cpu_seconds: int) -> Any:
    """``preexec_fn``: runs in the child between fork and exec (no Python objects shared)."""

    def apply() -> None:
        memory = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT * 4, OUTPUT_LIMIT * 4))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))

    return apply


def _read(path: Path) -> str:
    with path.open("rb") as fh:
        return fh.read(OUTPUT_LIMIT).decode("utf-8", errors="replace")


def run_isolated(
    command: Sequence[str], workdir: Path, config: SandboxConfig, *, output_dir: Path
) -> RunOutcome:
    """Run ``command`` in ``workdir`` without network, limited, and killed on timeout.

    stdout/stderr go to files in ``output_dir`` (not pipes), so a chatty or hostile program
    cannot fill our memory; the file-size limit caps them.
    """
    prefix = check_isolation(config.user, config.interpreter())
    output_dir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = output_dir / "stdout", output_dir / "stderr"
    start = time.perf_counter()
    timed_out = False
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            [*prefix, *command],
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=_child_env(workdir),
            preexec_fn=_limits(config.memory_mb, int(config.timeout) + 5),
            start_new_session=True,  # its own process group: the timeout kills all of it
        )
        try:
            proc.wait(timeout=config.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            with contextlib.suppress(ProcessLookupError):  # reap what it left in its group
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return RunOutcome(
        returncode=None if timed_out else proc.returncode,
        stdout=_read(out_path),
        stderr=_read(err_path),
        seconds=time.perf_counter() - start,
        timed_out=timed_out,
    )


# --------------------------------------------------------------------------- tasks


def splice_function(spec: TaskSpec, code: str) -> str:
    """``ori_python_file`` with the task's function replaced by the answer, in place.

    Unlike the recall detectors' released splice (one line lower), the function goes exactly
    where the original was, so decorators and the following definitions keep their places.
    """
    function = answer_function(spec, code).function.rstrip("\n")
    lines = spec.ori_python_file.split("\n")
    start, end = spec.signature_position[0], spec.body_position[1]
    return "\n".join([*lines[: start - 1], *function.split("\n"), *lines[end:]])


def script_command(spec: TaskSpec, config: SandboxConfig, environment: str | None) -> list[str]:
    """The task's ``script`` as an argument list; ``python``/``python3`` -> the interpreter."""
    words = shlex.split(spec.script.strip())
    if not words:
        raise InputError(f"task {spec.uid} has no script", field="script")
    if words[0] in ("python", "python3"):
        words[0] = config.interpreter(environment)
    return [*words, *config.extra_args]


def _prepare_copy(
    repo: Path, target: Path, spec: TaskSpec, file_text: str, uid_gid: int | None
) -> None:
    shutil.copytree(repo, target, symlinks=True)
    dest = target / spec.file_path
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(file_text, encoding="utf-8")
    if uid_gid is not None:
        for path in [target, *target.rglob("*")]:
            os.lchown(path, uid_gid, uid_gid)


def find_repository(repos_dir: Path, spec: TaskSpec) -> Path | None:
    """``<dir>/<project_path>``, ``<dir>/<its last part>`` or ``<dir>/<paper_id>``."""
    rel = Path(spec.project_path.strip().strip("/")) if spec.project_path else None
    candidates = [repos_dir / rel, repos_dir / rel.name] if rel else []
    for candidate in [*candidates, repos_dir / str(spec.paper_index)]:
        if candidate.is_dir():
            return candidate
    return None


def execute_task(
    spec: TaskSpec,
    code: str | None,
    repo: Path | None,
    config: SandboxConfig,
    *,
    reference_cache: dict[str, RunOutcome] | None = None,
) -> TaskExecution:
    """Reference run and generated run of one task in throw-away copies; the verdict."""
    if repo is None:
        return TaskExecution(spec.uid, "unavailable", "no repository for this task")
    if not spec.script.strip():
        return TaskExecution(spec.uid, "unavailable", "the task has no script")
    if not code or not code.strip():
        return TaskExecution(spec.uid, "failed", "no answer")
    command = script_command(spec, config, spec.environment)
    owner = NOBODY if (os.geteuid() == 0 and config.user == "nobody") else None
    with tempfile.TemporaryDirectory(prefix="scirep-sandbox-") as tmp:
        base = Path(tmp)
        base.chmod(0o711)  # the sandbox user may enter its copy, not list our folder
        reference = (reference_cache or {}).get(spec.uid)
        if reference is None:
            _prepare_copy(repo, base / "ref", spec, spec.ori_python_file, owner)
            reference = run_isolated(command, base / "ref", config, output_dir=base / "ref-out")
            if reference_cache is not None:
                reference_cache[spec.uid] = reference
        if not reference.ok:
            return TaskExecution(
                spec.uid,
                "unavailable",
                f"the reference run failed (exit {reference.returncode}, timed out: "
                f"{reference.timed_out}): {reference.stderr.strip()[-300:]}",
                reference,
            )
        _prepare_copy(repo, base / "gen", spec, splice_function(spec, code), owner)
        generated = run_isolated(command, base / "gen", config, output_dir=base / "gen-out")
    if generated.timed_out:
        return TaskExecution(
            spec.uid, "timeout", f"killed after {config.timeout:g} s", reference, generated
        )
    if generated.returncode != 0:
        last = generated.stderr.strip().splitlines()[-1:] or [""]
        return TaskExecution(
            spec.uid, "crash", f"exit {generated.returncode}: {last[0][:300]}", reference, generated
        )
    if generated.stdout != reference.stdout:
        return TaskExecution(
            spec.uid, "failed", "output differs from the reference run", reference, generated
        )
    return TaskExecution(spec.uid, "passed", "", reference, generated)


def execute_all(
    specs: Sequence[TaskSpec],
    codes: Mapping[str, str | None],
    repos_dir: Path | None,
    config: SandboxConfig,
) -> ExecutionReport:
    """Every task in turn (one at a time: each run may use the memory limit)."""
    report = ExecutionReport()
    if repos_dir is None:
        for spec in specs:
            report.tasks[spec.uid] = TaskExecution(spec.uid, "unavailable", "no --repos-dir")
        return report
    check_isolation(config.user, config.interpreter())  # fail before anything runs
    for spec in specs:
        repo = find_repository(repos_dir, spec)
        report.tasks[spec.uid] = result = execute_task(spec, codes.get(spec.uid), repo, config)
        log.info("%s: %s %s", spec.uid, result.status, result.reason)
    return report


def execute_tasks(
    specs: Sequence[TaskSpec], codes: Mapping[str, str | None], options: Mapping[str, Any]
) -> dict[str, bool | None]:
    """The task's ``--execute`` path: outcomes per task from the options."""
    config = SandboxConfig(
        timeout=float(options["exec_timeout"]),
        memory_mb=int(options["exec_memory_mb"]),
        python=options["python"],
        user=options["exec_user"],
        extra_args=tuple(shlex.split(options["exec_args"])),
    )
    return execute_all(specs, codes, options["repos_dir"], config).outcomes()
