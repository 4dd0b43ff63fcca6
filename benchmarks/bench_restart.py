"""Restart benchmark for the embedded store: how fast does a store come back, and complete?

Prints figures (this is not a test). Two scenarios, each on a fresh data dir:

1. **per-row path** (``scholarkg load apc``, UNWIND/MERGE batches): the synthetic LEGOBench
   corpus (default 20k papers / ~150k citations), once per persistence mode
   (``--modes``, default all four on-disk modes; see ``persistence.PERSISTENCE_MODES``):
   load time, files on disk, restart after a clean ``db stop``, then a second load that
   is cut by ``kill -9`` of the server half-way, the restart after that kill, and a
   ``load apc --resume``, whose final counts and property checksum must equal the clean
   load (the promise: a crash loses at most ~1 s of batches and ``--resume`` redoes them).
2. **bulk path** (``scholarkg load bulk``, GRAPH.BULK; default 1M papers / 5M citations,
   ``aof`` only): load time, restart after a clean stop and after ``kill -9`` of the
   server holding the finished graph, and a ``kill -9`` *during* the bulk load (the
   graph must then be reported incomplete, never silently partial).

Restart time = ``EmbeddedServer.start()`` until the server answers with the graph module
loaded (what every command waits for). Peak RSS of the server is its ``VmHWM``.
The CLI runs as subprocesses, exactly as a user runs it.

    .venv/bin/python benchmarks/bench_restart.py                    # both scenarios
    .venv/bin/python benchmarks/bench_restart.py --skip-bulk        # per-row only
    .venv/bin/python benchmarks/bench_restart.py --bulk-papers 100000 --bulk-citations 500000
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scholarkg.store.falkordb.server import EmbeddedServer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import generate  # a sibling script, not a package

SCHOLARKG = [sys.executable, "-m", "scholarkg.cli"]


def cli(env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*SCHOLARKG, *args], env=env, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise SystemExit(f"scholarkg {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def peak_rss(pid: int | None) -> int:
    """``VmHWM`` (peak resident set) of the server, in bytes."""
    if pid is None:
        return 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def disk(data_dir: Path) -> dict[str, int]:
    aof = data_dir / "appendonlydir"
    out = {"base": 0, "incr": 0, "rdb": 0}
    if aof.is_dir():
        for f in aof.iterdir():
            if ".base." in f.name:
                out["base"] += f.stat().st_size
            elif ".incr." in f.name:
                out["incr"] += f.stat().st_size
    if (data_dir / "dump.rdb").exists():
        out["rdb"] = (data_dir / "dump.rdb").stat().st_size
    return out


def graph_state(server: EmbeddedServer, graph: str = "scholarkg") -> dict[str, Any]:
    """Node/relationship counts and a checksum over every Paper's properties and CITES edge."""
    db = server.connect()
    g = db.select_graph(graph)
    try:
        nodes = g.ro_query("MATCH (n) RETURN count(n)").result_set[0][0]
        rels = g.ro_query("MATCH ()-[r]->() RETURN count(r)").result_set[0][0]
        h = hashlib.sha256()
        for label_query in (
            "MATCH (p:Paper) RETURN p.id, properties(p) ORDER BY p.id",
            "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN a.id, b.id ORDER BY a.id, b.id",
        ):
            for row in g.ro_query(label_query).result_set:
                h.update(json.dumps(row, sort_keys=True, default=str).encode())
        return {"nodes": int(nodes), "relationships": int(rels), "checksum": h.hexdigest()[:16]}
    finally:
        db.connection.close()


def rel_count(server: EmbeddedServer) -> int:
    with server._raw_client(server.socket_path, timeout=30) as client:
        if "scholarkg" not in client.execute_command("GRAPH.LIST"):
            return 0
        reply = client.execute_command(
            "GRAPH.RO_QUERY", "scholarkg", "MATCH ()-[r]->() RETURN count(r)"
        )
        return int(reply[1][0][0])


def marker_set(server: EmbeddedServer) -> int:
    with server._raw_client(server.socket_path, timeout=30) as client:
        return int(client.exists("scholarkg:incomplete:scholarkg"))


def wait_until(server: EmbeddedServer, cond: Any, load: subprocess.Popen[bytes]) -> None:
    while not cond():
        if load.poll() is not None:
            raise SystemExit("the load finished before the kill point; use a larger corpus")
        time.sleep(0.05)


def timed_start(server: EmbeddedServer) -> float:
    t = time.perf_counter()
    server.start()
    return time.perf_counter() - t


def kill9(server: EmbeddedServer) -> None:
    pid = server.status().pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    while True:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        if Path(f"/proc/{pid}/stat").exists() and " Z " in Path(f"/proc/{pid}/stat").read_text():
            break
        time.sleep(0.02)


def env_for(root: Path, data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(SCHOLARKG_HOME=str(root / "home"), SCHOLARKG_DATA_DIR=str(data_dir))
    for var in ("SCHOLARKG_CONFIG", "SCHOLARKG_BACKEND", "SCHOLARKG_GRAPH"):
        env.pop(var, None)
    return env


def per_row(root: Path, corpus: Path, mode: str) -> dict[str, Any]:
    """Clean load + restart, then kill -9 mid-load + restart + --resume, in ``mode``."""
    files = [
        *("--papers", str(corpus / "papers.jsonl")),
        *("--citations", str(corpus / "citations.csv")),
        *("--comparisons", str(corpus / "comparisons.csv")),
    ]
    out: dict[str, Any] = {"mode": mode}
    # clean load
    run = root / f"rows-{mode.replace('+', '_')}"
    shutil.rmtree(run, ignore_errors=True)
    data = run / "data"
    env = env_for(run, data)
    server = EmbeddedServer(data, persistence=mode)
    server.start()  # the CLI reuses this live server (and its persistence mode)
    t = time.perf_counter()
    cli(env, "load", "apc", *files)
    out["load_s"] = time.perf_counter() - t
    out["peak_rss"] = peak_rss(server.status().pid)
    clean = graph_state(server)
    out["clean"] = clean
    t = time.perf_counter()
    server.stop()
    out["stop_s"] = time.perf_counter() - t
    out["disk_after_load"] = disk(data)
    out["restart_clean_s"] = timed_start(server)
    assert graph_state(server) == clean, "clean restart changed the graph"
    server.stop()

    # kill -9 half-way through a second, identical load on a fresh store
    run2 = root / f"rows-{mode.replace('+', '_')}-kill"
    shutil.rmtree(run2, ignore_errors=True)
    data2 = run2 / "data"
    env2 = env_for(run2, data2)
    server2 = EmbeddedServer(data2, persistence=mode)
    server2.start()
    load = subprocess.Popen(
        [*SCHOLARKG, "load", "apc", *files], env=env2,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # kill once half of the clean load's relationships are in (mid citations file)
    wait_until(server2, lambda: rel_count(server2) >= clean["relationships"] // 2, load)
    kill9(server2)
    load.wait()
    out["disk_at_kill"] = disk(data2)
    out["restart_kill_s"] = timed_start(server2)
    out["after_kill"] = graph_state(server2)
    t = time.perf_counter()
    cli(env2, "load", "apc", *files, "--resume")
    out["resume_s"] = time.perf_counter() - t
    final = graph_state(server2)
    out["resumed_equals_clean"] = final == clean
    out["resumed"] = final
    server2.stop()
    return out


def bulk(root: Path, n_papers: int, n_cites: int) -> dict[str, Any]:
    """GRAPH.BULK load of n_papers/n_cites; restarts after clean stop and after kill -9."""
    gen = root / "bulk-input"
    gen.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    papers, cites = generate(gen, n_papers, n_cites)
    out: dict[str, Any] = {"papers": n_papers, "citations": n_cites}
    out["generate_s"] = time.perf_counter() - t
    run = root / "bulk"
    shutil.rmtree(run, ignore_errors=True)
    data = run / "data"
    env = env_for(run, data)
    server = EmbeddedServer(data)
    server.start()
    t = time.perf_counter()
    cli(env, "load", "bulk", "--papers", str(papers), "--edges", str(cites))
    out["load_s"] = time.perf_counter() - t
    out["peak_rss_load"] = peak_rss(server.status().pid)
    out["disk_after_load"] = disk(data)
    counts = server.status().graph_counts.get("scholarkg")
    out["counts"] = counts
    t = time.perf_counter()
    server.stop()
    out["stop_s"] = time.perf_counter() - t
    out["restart_clean_s"] = timed_start(server)
    out["peak_rss_restart"] = peak_rss(server.status().pid)
    assert server.status().graph_counts.get("scholarkg") == counts
    kill9(server)
    out["restart_kill_s"] = timed_start(server)
    assert server.status().graph_counts.get("scholarkg") == counts
    server.stop()
    shutil.rmtree(run, ignore_errors=True)

    # kill -9 during the bulk load: the graph must come back marked incomplete
    run = root / "bulk-kill"
    shutil.rmtree(run, ignore_errors=True)
    data = run / "data"
    env = env_for(run, data)
    server = EmbeddedServer(data)
    server.start()
    load = subprocess.Popen(
        [*SCHOLARKG, "load", "bulk", "--papers", str(papers), "--edges", str(cites)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # kill while GRAPH.BULK commands are being sent (the marker is set just before)
    wait_until(server, lambda: bool(marker_set(server)), load)
    time.sleep(0.5)
    kill9(server)
    load.wait()
    out["disk_at_kill_mid_load"] = disk(data)
    out["restart_mid_load_kill_s"] = timed_start(server)
    st = server.status()
    out["mid_load_graphs"] = st.graph_counts
    out["mid_load_incomplete"] = st.incomplete
    proc = cli(env, "stats", check=False)
    out["mid_load_open_message"] = (proc.stderr or proc.stdout).strip().splitlines()[-1:]
    server.stop()
    shutil.rmtree(run, ignore_errors=True)
    return out


def mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--leaderboards", type=int, default=100)
    ap.add_argument("--modes", default="aof,aof-everysec,aof+rdb,rdb")
    ap.add_argument("--bulk-papers", type=int, default=1_000_000)
    ap.add_argument("--bulk-citations", type=int, default=5_000_000)
    ap.add_argument("--skip-rows", action="store_true")
    ap.add_argument("--skip-bulk", action="store_true")
    ap.add_argument("--workdir", type=Path, default=None, help="keep files here")
    ap.add_argument("--json", type=Path, default=None, help="also write figures as JSON")
    args = ap.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="skg-restart-"))
    root.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = {"cpus": os.cpu_count(), "rows": [], "bulk": None}
    try:
        if not args.skip_rows:
            corpus = root / "corpus"
            if not (corpus / "papers.jsonl").exists():
                env = env_for(root, root / "unused")
                sizes = ["--papers", str(args.papers), "--leaderboards", str(args.leaderboards)]
                cli(env, "load", "synthetic-legobench", "--out", str(corpus), *sizes, "--no-load")
            for mode in args.modes.split(","):
                res = per_row(root, corpus, mode)
                figures["rows"].append(res)
                print(json.dumps(res), flush=True)
        if not args.skip_bulk:
            figures["bulk"] = bulk(root, args.bulk_papers, args.bulk_citations)
            print(json.dumps(figures["bulk"]), flush=True)
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))

    print(f"\nrestart figures ({os.cpu_count()} CPUs)")
    if figures["rows"]:
        print(f"per-row path: {args.papers:,} papers, `scholarkg load apc` (3 files)")
        print("| persistence | load | files after load (base / log / rdb) | restart after stop |"
              " restart after kill -9 mid-load | graph after kill | --resume = clean load |"
              " server peak RSS |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|")
        for r in figures["rows"]:
            d = r["disk_after_load"]
            k = r["after_kill"]
            print(
                f"| {r['mode']} | {r['load_s']:.1f} s | {mb(d['base'])} / {mb(d['incr'])} / "
                f"{mb(d['rdb'])} | {r['restart_clean_s']:.2f} s | {r['restart_kill_s']:.2f} s "
                f"| {k['nodes']:,} nodes, {k['relationships']:,} rels | "
                f"{'yes' if r['resumed_equals_clean'] else 'NO'} | {mb(r['peak_rss'])} |"
            )
    b = figures["bulk"]
    if b:
        d = b["disk_after_load"]
        print(f"bulk path: {b['papers']:,} papers / {b['citations']:,} citations, `load bulk`")
        print(f"  load {b['load_s']:.1f} s (incl. schema and compaction); files: base "
              f"{mb(d['base'])}, log {mb(d['incr'])}; stop {b['stop_s']:.1f} s")  # fmt: skip
        print(f"  restart after clean stop {b['restart_clean_s']:.1f} s, after kill -9 "
              f"{b['restart_kill_s']:.1f} s; server peak RSS load {mb(b['peak_rss_load'])}, "
              f"restart {mb(b['peak_rss_restart'])}")  # fmt: skip
        print(f"  kill -9 during the bulk load: restart {b['restart_mid_load_kill_s']:.1f} s, "
              f"incomplete {b['mid_load_incomplete']}, opening it says: "
              f"{b['mid_load_open_message']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
