"""The documentation's promises that can be checked without building it.

* every figure on the performance page names the script that prints it (CONTRIBUTING:
  performance figures come from ``benchmarks/`` scripts, not from memory);
* the README stays a front door (at most 250 lines; the rest lives in ``docs/``);
* nothing points at reference sheets outside the repository: a reader cannot open them.
"""

from __future__ import annotations

import re
from pathlib import Path

import scholarkg

ROOT = Path(scholarkg.__file__).resolve().parent.parent
SCRIPT = re.compile(r"bench_[a-z0-9_]+\.py")
#: a measured figure: a number with a unit of time, size, rate or ratio
FIGURE = re.compile(r"\d[\d,.]*\s*(?:s|ms|µs|MB|GB|×|x|%|/s|texts/s|queries/s|contexts/s)\b")


def _blocks(markdown: str) -> list[str]:
    """Paragraph by paragraph and table rows one by one (code fences skipped); a paragraph just
    before a table is its caption, and a caption that names a script attributes every row."""
    blocks: list[str] = []
    para: list[str] = []
    table: list[str] = []
    fence = False
    caption = ""

    def flush() -> None:
        nonlocal caption
        if para:
            blocks.append(" ".join(para))
            caption = blocks[-1]
            para.clear()
        if table:  # rows one by one, each attributed by a caption that names a script
            prefix = caption + " " if SCRIPT.search(caption) else ""
            blocks.extend(prefix + row if prefix else row for row in table)
            caption = ""
            table.clear()

    for line in markdown.splitlines():
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        if line.startswith("|"):
            if para:
                flush()
            table.append(line)
        elif line.strip():
            if table:
                flush()
            para.append(line)
        else:
            flush()
    flush()
    return blocks


def figures_without_script(markdown: str) -> list[str]:
    """Blocks that state a figure but name no ``bench_*.py`` script (table header rows and
    separator rows state none)."""
    return [
        b[:120]
        for b in _blocks(markdown)
        if FIGURE.search(b) and not SCRIPT.search(b) and not b.startswith("# ")
    ]


def test_every_performance_figure_names_its_script() -> None:
    assert figures_without_script((ROOT / "docs" / "performance.md").read_text()) == []


def test_the_check_finds_an_unattributed_figure() -> None:
    page = (
        "| op | ours | theirs |\n|---|---|---|\n"
        "| PageRank (`bench_pagerank.py`) | 0.98 s | 43.8 s |\n"
        "| load | 59.4 s | 223 s |\n\n"
        "Notes: it takes 8.15 s end to end.\n\n"
        "Printed by `benchmarks/bench_citerec.py`: 0.35 s warm.\n"
    )
    assert figures_without_script(page) == [
        "| load | 59.4 s | 223 s |",
        "Notes: it takes 8.15 s end to end.",
    ]


def test_readme_is_a_front_door() -> None:
    assert len((ROOT / "README.md").read_text().splitlines()) <= 250


def test_no_pointer_to_reference_sheets_outside_the_repository() -> None:
    sheet = re.compile(
        r"/work/shared|reference sheet|\b(?:legobench|dorismae|citerec|aaar|scireplicate|"
        r"graph-backends|style|architecture)\.md\b"
    )
    # this site's own pages, as links: (page.md), (docs/page.md), families/x.md, or by their
    # path in the repository: docs/page.md
    own_page = re.compile(r"(?:docs/)?families/\w+\.md|\((?:docs/)?\w+\.md\)|\bdocs/\w+\.md")
    paths = [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    for folder in ("scholarkg", "docs", "benchmarks", "tests"):
        paths += [
            p
            for p in sorted((ROOT / folder).rglob("*"))
            if p.suffix in {".py", ".md", ".cypher", ".toml", ".txt"}
            and "node_modules" not in p.parts
            and p != Path(__file__).resolve()
        ]
    offenders = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}"
        for path in paths
        for n, line in enumerate(own_page.sub("", path.read_text(errors="replace")).splitlines(), 1)
        if sheet.search(line)
    ]
    assert offenders == []


def store_modules_unnamed(page: str, store: Path) -> list[str]:
    """``store/...py`` modules the Architecture page's table of ``store/`` does not name: a
    shared module as ``store/<name>.py``, a backend's as its file name in its folder's row."""
    rows = {m[1]: m[0] for m in re.finditer(r"^\| `store/([^|]*?)`[^|]*\|.*$", page, re.M)}
    table = "\n".join(line for line in page.splitlines() if line.startswith("| `store/"))
    missing = []
    for path in sorted(store.rglob("*.py")):
        rel = path.relative_to(store).as_posix()
        if "/" not in rel:
            named = f"`store/{rel}`" in table
        else:
            folder, name = rel.split("/", 1)
            row = rows.get(f"{folder}/", "")
            named = name == "__init__.py" or f"`{name}`" in row
        if not named:
            missing.append(f"store/{rel}")
    return missing


def test_the_architecture_page_names_every_module_of_the_store() -> None:
    page = (ROOT / "docs/architecture.md").read_text(encoding="utf-8")
    assert store_modules_unnamed(page, ROOT / "scholarkg" / "store") == []


def test_the_store_table_check_finds_an_unnamed_module(tmp_path: Path) -> None:
    for rel in ("base.py", "new.py", "neo4j/gds.py", "neo4j/extra.py", "neo4j/__init__.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    page = "| `store/base.py` | the protocols |\n| `store/neo4j/` | `gds.py` (GDS) |\n"
    assert store_modules_unnamed(page, tmp_path) == ["store/neo4j/extra.py", "store/new.py"]
