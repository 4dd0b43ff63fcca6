"""Speed of the local LLM server (SmolLM2-135M by default) through the real HTTP path.

Why: LLM tasks run offline against ``scholarkg llm serve``; how long a benchmark takes is
set by the model's load time and generated tokens per second, and the thread count that
is best on a shared 2-core machine is not obvious (torch defaults to one per core). This
script measures both, end to end: our client -> loopback HTTP -> transformers generate.

    .venv/bin/python benchmarks/bench_llm.py                        # threads 1 and 2
    .venv/bin/python benchmarks/bench_llm.py --threads 1 --max-tokens 96 --requests 5

Figures (one JSON object per line):

* ``load``: seconds to load the model (a conversion on the first run for a cache dir,
  the cached safetensors copy afterwards) and which of the two it was;
* per thread count: generated tokens/s (sum of completion tokens / sum of request wall
  time), best and median request, over ``--requests`` prompts with greedy decoding and
  ``max_tokens`` = ``--max-tokens`` (prompts are invented, asking for long answers so that
  generation rather than the prompt dominates).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

PROMPTS = [
    "Explain what a citation graph is and why it helps to find related papers.",
    "Describe, step by step, how to build a leaderboard from a set of papers.",
    "Write a short story about a librarian who indexes every paper ever written.",
    "List ten ideas for evaluating a search engine for scientific articles.",
    "Explain PageRank to a new student in simple words.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help=".gguf file or model dir (default SmolLM2)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="default: settings cache")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--requests", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()

    from scholarkg.config import load_settings
    from scholarkg.services.llm import LLMClient
    from scholarkg.services.llm_server import LocalModel, LocalServer

    cache_dir = args.cache_dir or load_settings().cache_dir
    stages: list[str] = []
    start = time.perf_counter()
    model = LocalModel.load(args.model, cache_dir=cache_dir, progress=stages.append)
    load_s = time.perf_counter() - start
    converted = any(s.startswith("converting") for s in stages)
    print(json.dumps({"load": round(load_s, 2), "converted": converted, "model": model.name}))

    prompts = [PROMPTS[i % len(PROMPTS)] for i in range(args.requests)]
    for threads in (int(t) for t in args.threads.split(",")):
        model.threads = threads
        with (
            LocalServer(model, port=0, max_new_tokens=args.max_tokens) as server,
            LLMClient(server.base_url, None, timeout=600, max_retries=0) as client,
        ):
            client.chat("warm up", max_tokens=2)
            client.reset_usage()
            times, tokens = [], []
            for prompt in prompts:
                out = client.chat(prompt, max_tokens=args.max_tokens)
                times.append(out.seconds)
                tokens.append(out.completion_tokens)
        print(
            json.dumps(
                {
                    "threads": threads,
                    "requests": len(prompts),
                    "completion_tokens": sum(tokens),
                    "tokens_per_s": round(sum(tokens) / sum(times), 2),
                    "best_request_tokens_per_s": round(
                        max(n / t for n, t in zip(tokens, times, strict=True)), 2
                    ),
                    "median_request_s": round(statistics.median(times), 2),
                }
            )
        )


if __name__ == "__main__":
    main()
