"""What a read's rows cost the embedded store: the identity look-up returning its ``(key, id)``
rows as rows, against the same rows as two joined strings (``store/falkordb/joined_rows.py``),
and against counting them (what finding them costs alone).

    python benchmarks/bench_joined_rows.py --papers 200000 --keys 40000

Builds ``--papers`` OpenAlex Papers (``openalex:W<n>``, their ``openalex_id`` slot set) in an
ephemeral embedded store with the schema's indexes, then looks up ``--keys`` random W ids
with the look-up's two OpenAlex branches (the slot, and the id of a Paper not holding it in
its slot), as a loader chunk does. Per form, best of ``--repeat``: the call's wall time, the
server's CPU seconds (``/proc``) and the loader's; the rows of both forms must be the same.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_openalex import _server_cpu  # the sibling script's reading of the server's CPU

QUERY = """// falkordb-joined-rows: key str, id str
UNWIND $openalex AS v MATCH (p:Paper {id: 'openalex:' + v})
WHERE NOT coalesce(p.openalex_id = v, false)
RETURN 'openalex:' + v AS key, p.id AS id
UNION ALL
UNWIND $openalex AS v MATCH (p:Paper {openalex_id: v})
RETURN 'openalex:' + v AS key, p.id AS id"""


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--papers", type=int, default=200_000)
    ap.add_argument("--keys", type=int, default=40_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    from scholarkg.store.falkordb.joined_rows import joined_read
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    joined = joined_read(QUERY)
    assert joined is not None
    plain_text = QUERY.split("\n", 1)[1]  # without the header: the plain read
    count_text = f"CALL {{\n{plain_text}\n}}\nRETURN count(*) AS n"
    with EmbeddedServer(Path(tempfile.mkdtemp()), persistent=False) as server:
        store = FalkorDBStore(server.connect(), "bench_joined_rows")
        store.apply_schema()
        for lo in range(0, args.papers, 50_000):
            store.run(
                "UNWIND range($lo, $hi) AS i "
                "CREATE (:Paper {id: 'openalex:W' + toString(i), openalex_id: 'W' + toString(i)})",
                {"lo": lo + 1, "hi": min(lo + 50_000, args.papers)},
            )
        rng = random.Random(7)
        keys = sorted({f"W{rng.randrange(1, args.papers + 1)}" for _ in range(args.keys)})
        params = {"openalex": keys}
        forms = {
            "rows": lambda: store.run(plain_text, params),
            "joined strings": lambda: store.run(QUERY, params),
            "count only": lambda: store.run(count_text, params),
        }
        print(f"{args.papers:,} Papers, {len(keys):,} keys; best of {args.repeat}")
        print(f"{'form':<16} {'wall':>8} {'server CPU':>11} {'loader CPU':>11} {'rows':>8}")
        answers: dict[str, Any] = {}
        for name, call in forms.items():
            best = (float("inf"), 0.0, 0.0)
            for _ in range(args.repeat):
                s0, c0, t0 = _server_cpu(store), _own_cpu(), time.perf_counter()
                out = call()
                t1, c1, s1 = time.perf_counter(), _own_cpu(), _server_cpu(store)
                best = min(best, (t1 - t0, s1 - s0, c1 - c0))
            answers[name] = out
            rows = out[0]["n"] if name == "count only" else len(out)
            print(f"{name:<16} {best[0]:>7.3f}s {best[1]:>10.2f}s {best[2]:>10.3f}s {rows:>8,}")
        assert answers["rows"] == answers["joined strings"], "the two forms differ"
        assert len(answers["rows"]) == answers["count only"][0]["n"]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
