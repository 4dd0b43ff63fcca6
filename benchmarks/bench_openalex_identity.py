"""One graph whatever the way in: ``load openalex`` at size, checked end to end (issue 35).

A generated snapshot in OpenAlex's real layout (``bench_openalex.generate``: ~20 references
and 3 authors a work) plus *twin records*: every 50th work has a second OpenAlex record in a
newer partition (another ``W`` id, the same DOI, some other references, another citation
count, one author without the ORCID the first has), as a preprint and its article are. It
is loaded through the CLI, as a user would, several ways, and every resulting graph is
fingerprinted (every node's labels, id and properties, every edge's type, ends and
properties) and compared with the clean load:

* the clean load (``--batch-size 2000``), then a reload of the whole snapshot and of one
  twin record alone (both must change nothing);
* ``--batch-size 200``;
* a load killed with SIGKILL mid-way, then ``--resume``;
* ``--bulk`` (a new graph; on Neo4j the managed server's importer).

    python benchmarks/bench_openalex_identity.py --works 20000
    python benchmarks/bench_openalex_identity.py --works 20000 --backend neo4j

Prints one line per phase: seconds, works/s, node and edge counts, and whether the graph
equals the clean load's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_openalex import generate


def add_twins(root: Path, works: int, every: int = 50) -> int:
    """A second record for every ``every``-th work (see the module doc); returns how many."""
    part = root / "data" / "works" / "updated_date=2026-01-01" / "part_000.gz"
    part.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with gzip.open(part, "wt", encoding="utf-8") as fh:
        for w in range(every, works + 1, every):
            if not w % 4:
                continue  # no DOI: nothing to share
            twin = {
                "id": f"https://openalex.org/W{10_000_000 + w}",
                "doi": f"https://doi.org/10.5555/{w}",
                "title": f"Twin of work {w}",
                "publication_year": 2000 + w % 25,
                "type": "article",
                "cited_by_count": 1000 + w,
                "ids": {"openalex": f"https://openalex.org/W{10_000_000 + w}"},
                "authorships": [
                    {
                        "author": {
                            "id": f"https://openalex.org/A{w}",
                            "display_name": f"Author {w}",
                            # one ORCID per work (w % 10000 gave two authors one ORCID
                            # past 10,000 works: one person to the resolver, rightly)
                            "orcid": f"https://orcid.org/0000-0002-{w // 1000:04d}-{w % 1000:03d}X",
                        }
                    }
                ],
                "referenced_works": [f"https://openalex.org/W{r}" for r in (w + 1, w + 2, w + 3)],
            }
            fh.write(json.dumps(twin) + "\n")
            n += 1
    return n


def cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scholarkg.cli", *args],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip


def fingerprint(env: dict[str, str]) -> dict[str, Any]:
    """sha256 of every node and edge with its properties, and the counts."""
    code = r"""
import hashlib, json, sys
from scholarkg.config import load_settings
from scholarkg.store import open_store
s = open_store(load_settings())
h = hashlib.sha256()
nodes = s.run("MATCH (n) RETURN labels(n) AS l, n.id AS id, properties(n) AS p")
rows = sorted(json.dumps([sorted(n["l"]), n["id"], sorted(n["p"].items())], default=str)
              for n in nodes)
edges = s.run("MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS a, b.id AS b, "
              "properties(r) AS p")
rows += sorted(json.dumps([e["t"], e["a"], e["b"], sorted(e["p"].items())], default=str)
               for e in edges)
for r in rows:
    h.update(r.encode()); h.update(b"\n")
c = s.counts()
print(json.dumps({"sha": h.hexdigest()[:16], "nodes": c.nodes, "rels": c.relationships}))
"""
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=20_000)
    ap.add_argument("--backend", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument(
        "--kill-after",
        type=float,
        default=None,
        help="seconds before SIGKILL (default: half the clean load's time)",
    )
    ap.add_argument("--home", type=Path, default=None, help="SCHOLARKG_HOME (default: new)")
    ap.add_argument("--snapshot-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-identity-"))
    snap = (args.snapshot_dir or tmp) / f"identity-{args.works}"
    if not (snap / "done").exists():
        generate(snap, args.works)
        twins = add_twins(snap, args.works)
        (snap / "done").write_text(str(twins))
    twins = int((snap / "done").read_text() or 0)
    home = args.home or tmp / "home"
    base = {**os.environ, "SCHOLARKG_HOME": str(home), "SCHOLARKG_BACKEND": args.backend}
    base.pop("NEO4J_URI", None)
    print(f"{args.works:,} works + {twins} twin records, backend {args.backend}", flush=True)

    def fresh(name: str) -> dict[str, str]:
        env = {**base, "SCHOLARKG_GRAPH": f"identity_{name}_{int(time.time())}"}
        cli(["db", "reset", "--yes"], env)
        return env

    def phase(
        name: str,
        env: dict[str, str],
        cmd: list[str],
        clean: dict[str, Any] | None,
        *,
        kill_after: float | None = None,
    ) -> tuple[dict[str, Any], float]:
        t0 = time.perf_counter()
        if kill_after is not None:
            p = subprocess.Popen(
                [sys.executable, "-m", "scholarkg.cli", *cmd],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(kill_after)
            p.send_signal(signal.SIGKILL)
            p.wait()
            cmd = [*cmd, "--resume"]
        res = cli(cmd, env)
        seconds = time.perf_counter() - t0
        if res.returncode:
            print(f"{name}: exit {res.returncode}\n{res.stdout[-1500:]}\n{res.stderr[-1500:]}")
            return {}, seconds
        fp = fingerprint(env)
        same = "" if clean is None else f"; equal to the clean load: {fp['sha'] == clean['sha']}"
        drops = [ln.strip() for ln in res.stdout.splitlines() if "dropped" in ln]
        n_nodes = sum(v for k, v in fp["nodes"].items() if k != "Stub")
        print(f"{name}: {seconds:.1f} s ({(args.works + twins) / seconds:,.0f} works/s); "
              f"{n_nodes:,} nodes ({fp['nodes'].get('Stub', 0):,} stubs), "
              f"{sum(fp['rels'].values()):,} relationships{same}"
              + (f"; {drops}" if drops else ""), flush=True)  # fmt: skip
        return fp, seconds

    env = fresh("clean")
    clean, seconds = phase("clean load (batch 2000)", env, ["load", "openalex", str(snap)], None)
    phase("reload of the whole snapshot", env, ["load", "openalex", str(snap)], clean)
    one = tmp / "one" / "data" / "works" / "updated_date=2026-02-01" / "part_000.gz"
    one.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(snap / "data/works/updated_date=2026-01-01/part_000.gz", "rt") as fh:
        first_twin = fh.readline()
    with gzip.open(one, "wt") as fh:
        fh.write(first_twin)
    phase("reload of one twin record", env, ["load", "openalex", str(tmp / "one")], clean)
    phase("batch 200", fresh("b200"),
          ["load", "openalex", str(snap), "--batch-size", "200"], clean)  # fmt: skip
    phase("kill -9 mid-load + --resume", fresh("kill"), ["load", "openalex", str(snap)], clean,
          kill_after=args.kill_after or seconds / 2)  # fmt: skip
    phase("--bulk", fresh("bulk"), ["load", "openalex", str(snap), "--bulk"], clean)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
