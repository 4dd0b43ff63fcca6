"""A file that holds no records loads (exit 0) with a warning naming it.

Found by a user: an empty ``papers.jsonl`` loaded with rc 0 and "0 records" and no warning,
so a wrong or truncated file went unnoticed. Not an error: an empty edge list or snapshot
partition can be right.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from _cli import cli_ok

from scholarkg.config import Settings
from scholarkg.loaders.steps import apc_steps, run_steps
from scholarkg.store.falkordb.store import FalkorDBStore

WARNING = "no records in this file (it is empty, or holds only blank lines or a header)"


@pytest.mark.parametrize(
    ("name", "text"),
    [("papers.jsonl", ""), ("papers.jsonl", "\n  \n\n"), ("papers.jsonl.gz", None)],
)
def test_load_apc_warns_about_a_papers_file_without_records(
    graph_env: str, tmp_path: Path, name: str, text: str | None
) -> None:
    path = tmp_path / name
    if text is None:
        path.write_bytes(gzip.compress(b""))
    else:
        path.write_text(text)
    out = " ".join(cli_ok(["load", "apc", "--papers", str(path)]).split())
    assert f"warning: {path}: {WARNING}; nothing was loaded from it" in out


def test_only_the_file_without_records_is_warned_about(
    store: FalkorDBStore, settings: Settings, tmp_path: Path
) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text(json.dumps({"id": "2310.00001", "title": "T"}) + "\n")
    citations = tmp_path / "citations.csv"
    citations.write_text("start,end,sentence\n")  # a header and no row
    store.apply_schema()
    summary = run_steps(store, apc_steps(papers, citations, None, chunks=False), settings=settings)
    assert summary.warnings == [f"{citations}: {WARNING}; nothing was loaded from it"]
    # a resumed load that skips a whole stored file read its records: no warning
    again = run_steps(
        store, apc_steps(papers, None, None, chunks=False), settings=settings, resume=True
    )
    assert again.warnings == []


@pytest.mark.parametrize(
    ("loader", "name"),
    [(loader, name) for loader in ("crossref", "openalex", "arxiv")
     for name in ("works.json", "works.jsonl")] + [("bibtex", "refs.bib"), ("s2", "papers.json")],
)  # fmt: skip
def test_an_empty_file_of_records_warns_alike_for_every_catalogue_loader(
    graph_env: str, tmp_path: Path, loader: str, name: str
) -> None:
    """An empty ``.json`` stopped ``load crossref``/``load openalex`` with ``empty file``
    (exit 3) where an empty ``.jsonl`` or ``load arxiv`` warned (a new user's review)."""
    path = tmp_path / name
    path.write_text("")
    args = (
        ["load", loader, "--papers", str(path)] if loader == "s2" else ["load", loader, str(path)]
    )
    out = " ".join(cli_ok(args).split())
    assert f"warning: {path}: {WARNING}; nothing was loaded from it" in out
