"""``make install``'s package step with uv and with pip, each into a fresh venv, in one run.

Why: a fresh clone's ``make test`` starts by installing about 6 GB of wheels (torch with its
CUDA libraries among them); the Makefile uses uv when it can and pip otherwise. This script
times both the way the Makefile runs them, with no package cache (``UV_NO_CACHE``,
``--no-cache-dir``), and checks that they install the same distributions at the same
versions (pip itself and uv aside).

    .venv/bin/python benchmarks/bench_install.py            # both, uv first
    .venv/bin/python benchmarks/bench_install.py --only uv
    .venv/bin/python benchmarks/bench_install.py --only uv --cache --rounds 2

``--cache`` lets the installers use their caches, as a second ``make install`` on the same
machine does (a fresh clone's included); ``--rounds 2`` then shows a cold and a warm one.

The pinned packages (torch, uv, the LLM package installed without its dependencies) are read
from the Makefile, so the script times what ``make install`` installs. Each venv is made in a
temporary directory and removed at the end.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def makefile_value(name: str) -> str:
    """``NAME := value`` from the Makefile (the pins ``make install`` uses)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(rf"^{name}\s*:=\s*(\S+)\s*$", text, re.MULTILINE)
    if found is None:
        raise SystemExit(f"{name} not found in the Makefile")
    return found.group(1)


def run(cmd: list[str], env: dict[str, str]) -> None:
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def install(kind: str, venv: Path, *, cache: bool = False) -> float:
    """Seconds to create ``venv`` and install the project into it with ``kind``."""
    torch, llm, uv = (
        makefile_value("TORCH"),
        makefile_value("LLM_PKG"),
        makefile_value("UV_VERSION"),
    )
    env = {**os.environ, "UV_NATIVE_TLS": "1"}
    if not cache:
        env.update({"UV_NO_CACHE": "1", "PIP_NO_CACHE_DIR": "1"})
    py = str(venv / "bin" / "python")
    start = time.perf_counter()
    run([sys.executable, "-m", "venv", str(venv)], env)
    if kind == "uv":
        run([py, "-m", "pip", "install", "-q", f"uv=={uv}"], env)
        uv_bin = str(venv / "bin" / "uv")
        run([uv_bin, "pip", "install", "-q", "--python", py, torch, "-e", ".[all,dev,docs]"], env)
        run([uv_bin, "pip", "install", "-q", "--python", py, "--no-deps", llm], env)
    else:
        run([py, "-m", "pip", "install", "-q", "--upgrade", "pip"], env)
        run([py, "-m", "pip", "install", "-q", torch], env)
        run([py, "-m", "pip", "install", "-q", "-e", ".[all,dev,docs]"], env)
        run([py, "-m", "pip", "install", "-q", "--no-deps", llm], env)
    return time.perf_counter() - start


def installed(venv: Path) -> set[str]:
    """``name==version`` of every distribution in the venv, names normalised (PEP 503)."""
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    rows = set()
    for line in out.splitlines():
        name, _, version = line.partition("==")
        rows.add(f"{re.sub(r'[-_.]+', '-', name).lower()}=={version}")
    return {r for r in rows if not r.startswith(("pip==", "uv=="))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=("uv", "pip"), help="time one installer")
    ap.add_argument("--cache", action="store_true", help="let uv and pip use their caches")
    ap.add_argument("--rounds", type=int, default=1, help="installs per installer")
    args = ap.parse_args()
    kinds = [args.only] if args.only else ["uv", "pip"]
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-install-"))
    try:
        seconds, packages = {}, {}
        for kind in kinds:
            for n in range(1, args.rounds + 1):
                venv = tmp / kind
                seconds[kind] = install(kind, venv, cache=args.cache)
                packages[kind] = installed(venv)
                size = sum(f.stat().st_size for f in venv.rglob("*") if f.is_file()) / 1e9
                print(f"{kind}{' (cache)' if args.cache else ''} round {n}: "
                      f"{seconds[kind]:.1f} s, {len(packages[kind])} distributions, "
                      f"venv {size:.1f} GB")  # fmt: skip
                shutil.rmtree(venv)
        if len(kinds) == 2:
            same = packages["uv"] == packages["pip"]
            print(f"pip / uv: {seconds['pip'] / seconds['uv']:.1f}x; same distributions and "
                  f"versions: {same}")  # fmt: skip
            for row in sorted(packages["uv"] ^ packages["pip"]):
                print(f"  only with {'uv' if row in packages['uv'] else 'pip'}: {row}")
        print(f"load average at end: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
