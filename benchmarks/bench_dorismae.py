"""DORIS-MAE figures: loader memory on a large file, and ranking time per ranker.

    .venv/bin/python benchmarks/bench_dorismae.py rank              # 100 pools of ~110
    .venv/bin/python benchmarks/bench_dorismae.py rank --embed-docs 500 --backend torch-int8
    .venv/bin/python benchmarks/bench_dorismae.py load --target-mb 500   # peak RSS of a load

``rank``: a synthetic world of 100 queries with pools of ~110 abstracts (the real shape:
99-138, ~11k pool abstracts), loaded into a fresh graph on a throwaway embedded server.
Per ranker: the time to rank all pools from stored vectors (vectors encoded beforehand),
and the embedding time separately (``--embed-docs`` abstracts encoded with the chosen
backend; the all-pool figure is extrapolated linearly, and says so). Quality on the
synthetic world (NDCG10%, MAP) and a paired randomization test against whole-query BM25
are printed beside the times. Our ``bm25`` is rank-bm25's ``BM25Okapi`` per pool (the
upstream implementation); the alternative timed beside it is the project's bm25s ranker
(``rankers/bm25.py``) built per pool with the BM25Okapi-equivalent variant.

``load``: writes a synthetic v1 file of about ``--target-mb`` MB, then runs
``scholarkg load dorismae`` on it in a child process and reports the child's peak RSS
(``ru_maxrss``; the FalkorDB server is a separate process and is not counted), beside the
peak RSS of the obvious alternative, ``json.load`` of the same file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")


class HashEmbedder:
    """Bag-of-words hashed into 256 dims: a stand-in encoder for *ranking-time* figures only
    (what dense ranking costs once vectors are stored does not depend on the model)."""

    name = "hash-256"
    slug = "hash256"
    dim = 256

    def encode(self, texts: Any, *, batch_size: int = 32, progress: Any = None) -> Any:
        import zlib

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for tok in text.lower().split():
                out[row, zlib.crc32(tok.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def _world(n_queries: int, pool: int, background: int, words: int, seed: int = 5) -> Any:
    from scholarkg.synthetic.dorismae import SyntheticDoris

    return SyntheticDoris(
        n_queries=n_queries,
        pool_size=pool,
        n_background=background,
        seed=seed,
        abstract_words=words,
    )


def cmd_load(args: argparse.Namespace) -> None:
    from scholarkg.synthetic.dorismae import write_json

    tmp = Path(args.dir or tempfile.mkdtemp(prefix="doris-bench-"))
    path = tmp / "DORIS-MAE_synthetic_v1.json"
    if not path.exists():
        # ~2.4 kB per abstract (original + masked text at 160 words) dominates the size
        background = max(0, int(args.target_mb * 1e6 / 2400) - 100 * 110)
        t0 = time.perf_counter()
        write_json(_world(100, 110, background, 160), path)
        print(
            f"wrote {path} ({path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s"
        )
    size_mb = path.stat().st_size / 1e6
    env = {
        **os.environ,
        "SCHOLARKG_HOME": str(tmp / "home"),
        "SCHOLARKG_DATA_DIR": str(tmp / "home" / "falkordb"),
        "SCHOLARKG_GRAPH": "bench",
    }
    code = (
        "import resource, sys, time\n"
        "from scholarkg.cli import main\n"
        "t0 = time.perf_counter()\n"
        "sys.argv = ['scholarkg', 'load', 'dorismae', sys.argv[1]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('LOAD_SECONDS', time.perf_counter() - t0)\n"
        "print('PEAK_RSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    lines = dict(
        line.split(" ", 1) for line in out.stdout.splitlines() if line.startswith(("LOAD", "PEAK"))
    )
    if "PEAK_RSS_KB" not in lines:
        print(out.stdout[-3000:], out.stderr[-3000:])
        raise SystemExit("load failed")
    alt = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, resource, sys; json.load(open(sys.argv[1])); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    print(f"file: {size_mb:.0f} MB")
    print(
        f"scholarkg load dorismae: peak RSS {int(lines['PEAK_RSS_KB']) / 1024:.0f} MB, "
        f"{float(lines['LOAD_SECONDS']):.0f} s"
    )
    print(f"json.load (alternative): peak RSS {int(alt.stdout) / 1024:.0f} MB")
    summary = [x for x in out.stdout.splitlines() if x.startswith(("read:", "tolerated:"))]
    print("\n".join(summary))


def cmd_rank(args: argparse.Namespace) -> None:
    import numpy as np

    from scholarkg.benchmark.metrics.stats import paired_test
    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.benchmark.tasks.dorismae import rankers as R
    from scholarkg.benchmark.tasks.dorismae.task import DorisMaeTask, RankerKit
    from scholarkg.loaders.dorismae import DorisReader
    from scholarkg.loaders.writer import write_records
    from scholarkg.services.embeddings import load_embedder
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore
    from scholarkg.synthetic.dorismae import write_json

    tmp = Path(tempfile.mkdtemp(prefix="doris-rank-"))
    world = _world(args.queries, args.pool, 200, 120)
    path = write_json(world, tmp / "d.json")
    with EmbeddedServer(tmp / "falkordb", persistent=False) as server:
        store = FalkorDBStore(server.connect(), "bench")
        store.apply_schema()
        t0 = time.perf_counter()
        write_records(store, DorisReader(path).records())
        print(f"loaded {path.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t0:.1f} s")
        task = DorisMaeTask()
        options = task.resolve_options({"backend": args.backend})
        instances = task.build_instances(store, options)
        n_abs = len({a for i in instances for a in i.data["pool"]})
        print(
            f"{len(instances)} queries, {n_abs} pool abstracts, "
            f"mean pool {np.mean([len(i.data['pool']) for i in instances]):.0f}"
        )

        # timed: no vector cache; the task's own (native) token limit
        model = load_embedder("minilm", backend=args.backend, native_length=True, cache=False)
        embedder = HashEmbedder() if args.encoder == "hash" else model
        texts = {a: t for i in instances for a, t in i.data["texts"].items()}
        sample = dict(list(texts.items())[: args.embed_docs])
        t0 = time.perf_counter()
        model.encode(list(sample.values()), batch_size=64)
        t_embed = time.perf_counter() - t0
        print(
            f"embedding ({model.name}, {args.backend}): {len(sample)} abstracts in "
            f"{t_embed:.1f} s -> all {n_abs} pool abstracts ≈ "
            f"{t_embed / len(sample) * n_abs:.0f} s (extrapolated linearly)"
        )
        sents = [s for t in sample.values() for s in R.split_sentences(t)]
        t0 = time.perf_counter()
        model.encode(sents, batch_size=64)
        t_sent = time.perf_counter() - t0
        print(
            f"  + their {len(sents)} sentences (sentence-level rankers): {t_sent:.1f} s -> "
            f"≈ {t_sent / len(sample) * n_abs:.0f} s for all pools (extrapolated)"
        )

        source = AnswerSource.ranker("dense", embedder=embedder)
        kit = RankerKit(store, instances, source, options)
        t0 = time.perf_counter()
        n_sent = len(kit.vectors().sent)  # abstracts and their sentences, as the figures state
        t_all_embed = time.perf_counter() - t0
        print(
            f"embedding every pool abstract and its sentences ({n_sent} abstracts) for the "
            f"runs below ({embedder.name}): {t_all_embed:.1f} s"
        )
        rows = []
        runs: dict[str, Any] = {}
        for name in args.rankers.split(","):
            ranker = kit.ranker(name)
            t0 = time.perf_counter()
            rankings = kit.rank_all(ranker)
            elapsed = time.perf_counter() - t0
            from scholarkg.benchmark.task import Answers

            res = task.score(
                instances,
                Answers({q: r.ids for q, r in rankings.items()}, AnswerSource.ranker(name)),
                options,
            )
            runs[name] = res
            rows.append((name, elapsed, res.aggregate["NDCG10%"], res.aggregate["MAP"]))
        from scholarkg.benchmark.rankers.bm25 import BM25Params, BM25Ranker

        t0 = time.perf_counter()
        for inst in instances:  # the alternative: the project's bm25s ranker, one per pool
            pool = inst.data["pool"]
            index = BM25Ranker(
                pool,
                [R.clean_abstract(texts[a]) for a in pool],
                params=BM25Params.rank_bm25_okapi(),
                tokenizer=R.UPSTREAM_TOKENIZER,
            )
            index.rank(inst.data["text"], len(pool), candidates=pool)
        t_alt = time.perf_counter() - t0
        qids = [i.id for i in instances]
        base = runs.get("bm25")
        print(
            f"\n{'ranker':<18}{'rank all pools s':>18}{'+embed s':>10}{'NDCG10%':>9}"
            f"{'MAP':>7}{'ΔNDCG vs bm25':>15}{'p':>8}"
        )
        dense_like = {
            "dense",
            "sentence-maxsim",
            "aspect-dense",
            "aspect-both",
            "hybrid-rrf",
            "fusion-learned",
        }
        for name, elapsed, ndcg, map_ in rows:
            with_embed = elapsed + (t_all_embed if name in dense_like else 0.0)
            delta, p = "", ""
            if base is not None and name != "bm25":
                t = paired_test(
                    [base.per_instance[q]["NDCG10%"] for q in qids],
                    [runs[name].per_instance[q]["NDCG10%"] for q in qids],
                )
                delta, p = f"{t.delta:+.2f}", f"{t.p_value:.4f}"
            print(
                f"{name:<18}{elapsed:>18.2f}{with_embed:>10.1f}{ndcg:>9.2f}{map_:>7.2f}"
                f"{delta:>15}{p:>8}"
            )
        print(f"{'bm25s index per pool (alternative)':<36}{t_alt:.2f} s for all pools")
        for ours, base_name in (
            ("graph-ppr", "aspect-bm25"),
            ("fusion-learned", "aspect-bm25"),
            ("aspect-both", "aspect-bm25"),
            ("aspect-dense", "dense"),
        ):
            if ours in runs and base_name in runs:
                for metric in ("NDCG10%", "MAP"):
                    t = paired_test(
                        [runs[base_name].per_instance[q][metric] for q in qids],
                        [runs[ours].per_instance[q][metric] for q in qids],
                    )
                    print(f"{ours} vs {base_name}: {metric} {t.delta:+.2f} (p = {t.p_value:.4f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("load")
    p.add_argument("--target-mb", type=float, default=500)
    p.add_argument("--dir", default=None, help="keep/reuse the generated file here")
    p.set_defaults(func=cmd_load)
    p = sub.add_parser("rank")
    p.add_argument("--queries", type=int, default=100)
    p.add_argument("--pool", type=int, default=110)
    p.add_argument(
        "--encoder",
        default="minilm",
        choices=("minilm", "hash"),
        help="encoder of the ranking runs (hash: timing only)",
    )
    p.add_argument("--backend", default="torch-int8", choices=("torch", "torch-int8"))
    p.add_argument("--embed-docs", type=int, default=300)
    p.add_argument(
        "--rankers",
        default="bm25,tfidf,dense,sentence-maxsim,aspect-bm25,"
        "aspect-dense,aspect-both,graph-ppr,hybrid-rrf,fusion-learned",
    )
    p.set_defaults(func=cmd_rank)
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
