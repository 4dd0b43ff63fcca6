"""Synthetic works written in OpenAlex, arXiv and Crossref's real file layouts (we made them
up; no third-party content), shared by the catalogue loader tests, and a load of a snapshot
part one work a chunk (:func:`load_work_by_work`).

Three works, each known to the sources by different ids, chosen so that every load order
exercises matching and merging:

* W1: an arXiv preprint (2401.00001) with a journal DOI (10.1000/j1), MAG and PMID in
  OpenAlex (arXiv id from its arXiv landing page); it cites W2, W3 and W9 (OpenAlex) and
  j2, x9 (Crossref; x9 is unknown);
* W2: DOI only (10.1000/j2); Crossref lists its reference to W3 by arXiv's DataCite DOI;
* W3: arXiv only (2402.00002); OpenAlex names it by its DataCite DOI 10.48550/arXiv.2402.00002.

So OpenAlex's stub for W2 (``openalex:W2``) and Crossref's (``doi:10.1000/j2``) are two nodes
until a record naming both ids arrives, and likewise for W3: those are merges.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from scholarkg.config import Settings, load_settings
from scholarkg.loaders import openalex
from scholarkg.loaders.identity import IdentityResolver, SourceGroup
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.store.base import GraphStore


def inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for pos, word in enumerate(text.split()):
        index.setdefault(word, []).append(pos)
    return index


def openalex_work(n: int, **over: Any) -> dict[str, Any]:
    works: dict[int, dict[str, Any]] = {
        1: {
            "doi": "https://doi.org/10.1000/J1",
            "title": "Graphs of the scholarly record",
            "ids": {
                "openalex": "https://openalex.org/W1",
                "doi": "https://doi.org/10.1000/J1",
                "mag": "111",
                "pmid": "https://pubmed.ncbi.nlm.nih.gov/999",
            },
            "locations": [{"landing_page_url": "https://arxiv.org/abs/2401.00001v2"}],
            "referenced_works": [
                "https://openalex.org/W2",
                "https://openalex.org/W3",
                "https://openalex.org/W9",
            ],
            "abstract_inverted_index": inverted("one graph per work of the record"),
            "authorships": [
                {
                    "author_position": "first",
                    "raw_author_name": "Ada L.",
                    "author": {
                        "id": "https://openalex.org/A1",
                        "display_name": "Ada Lovelace",
                        "orcid": "https://orcid.org/0000-0001-2345-6789",
                    },
                    "institutions": [
                        {"id": "https://openalex.org/I1", "display_name": "Analytical U"}
                    ],
                },
                {
                    "author_position": "last",
                    "author": {"id": "https://openalex.org/A2", "display_name": "Charles Babbage"},
                    "institutions": [],
                },
            ],
            "primary_location": {
                "source": {"id": "https://openalex.org/S1", "display_name": "Journal of Graphs"}
            },
        },
        2: {
            "doi": "https://doi.org/10.1000/j2",
            "title": "Identifiers across catalogues",
            "ids": {
                "openalex": "https://openalex.org/W2",
                "pmid": "https://pubmed.ncbi.nlm.nih.gov/222",
            },
            "referenced_works": [],
        },
        3: {
            "doi": "https://doi.org/10.48550/arXiv.2402.00002",
            "title": "Merging works",
            "referenced_works": [],
        },
    }
    base = {
        "id": f"https://openalex.org/W{n}",
        "publication_year": 2024,
        "publication_date": f"2024-0{n}-15",
        "type": "article",
        "language": "en",
        "cited_by_count": 10 * n,
        "open_access": {"is_oa": True, "oa_status": "green", "oa_url": f"https://example.org/{n}"},
        "topics": [{"id": "https://openalex.org/T1", "display_name": "Graphs", "score": 0.9}],
        "related_works": ["https://openalex.org/W7"],
        "some_future_field": {"ignored": True},
        **works[n],
    }
    base.update(over)
    return base


def citing_work(w: int, refs: list[int], *, doi: str | None = None) -> dict[str, Any]:
    """A bare OpenAlex work ``W{w}`` citing ``W{r}`` for each of ``refs`` (no authors, no
    venue, no locations), with an optional DOI: the identity tests' works."""
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=f"Work {w}",
        doi=f"https://doi.org/{doi}" if doi else None,
        ids={"openalex": f"https://openalex.org/W{w}"}, locations=[], cited_by_count=w,
        publication_year=2001, referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=[], primary_location=None,
    )  # fmt: skip


def arxiv_record(n: int) -> dict[str, Any]:
    recs: dict[int, dict[str, Any]] = {
        1: {
            "id": "2401.00001",
            "doi": "10.1000/j1",
            "title": "Graphs of the\n  scholarly record",
            "abstract": "  One graph per\nwork.\n",
            "categories": "cs.DL cs.DB",
            "authors_parsed": [["Lovelace", "Ada", ""], ["Babbage", "Charles", ""]],
            "versions": [{"version": "v1", "created": "Mon, 1 Jan 2024 10:00:00 GMT"}],
            "journal-ref": "J. Graphs 1 (2024)",
        },
        3: {
            "id": "2402.00002",
            "doi": None,
            "title": "Merging works",
            "abstract": "Merges.",
            "categories": "cs.DL",
            "authors_parsed": [["Hopper", "Grace", ""]],
            "versions": [{"version": "v1", "created": "Thu, 1 Feb 2024 10:00:00 GMT"}],
        },
    }
    return {"submitter": "x", "update_date": "2024-03-01", "license": None, **recs[n]}


def crossref_item(n: int) -> dict[str, Any]:
    items: dict[int, dict[str, Any]] = {
        1: {
            "DOI": "10.1000/J1",
            "title": ["Graphs of the scholarly record"],
            "author": [
                {
                    "given": "Ada",
                    "family": "Lovelace",
                    "sequence": "first",
                    "ORCID": "http://orcid.org/0000-0001-2345-6789",
                }
            ],
            "issued": {"date-parts": [[2024, 1, 15]]},
            "container-title": ["Journal of Graphs"],
            "reference": [
                {"key": "r1", "DOI": "10.1000/j2"},
                {"key": "r2", "DOI": "10.1000/X9"},
                {"key": "r3", "unstructured": "A book without a DOI, 1999."},
            ],
            "is-referenced-by-count": 3,
        },
        2: {
            "DOI": "10.1000/j2",
            "title": ["Identifiers across catalogues"],
            "issued": {"date-parts": [[2024, 2]]},
            "reference": [{"key": "a", "DOI": "10.48550/arXiv.2402.00002"}],
            "abstract": "<jats:p>Ids <jats:italic>everywhere</jats:italic>.</jats:p>",
        },
    }
    return {"type": "journal-article", "publisher": "x", **items[n]}


def write_openalex(folder: Path, works: list[dict[str, Any]], *, date: str = "2024-05-01") -> Path:
    part = folder / "data" / "works" / f"updated_date={date}" / "part_000.gz"
    part.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(part, "wt", encoding="utf-8") as fh:
        for w in works:
            fh.write(json.dumps(w) + "\n")
    return part


def write_arxiv(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def write_crossref(path: Path, items: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "status": "ok",
        "message-type": "work-list",
        "message": {"total-results": len(items), "items": items},
    }
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def load_work_by_work(
    store: GraphStore, snapshot_part: Path, *, reuse_lookups: bool = True
) -> IdentityResolver:
    """``load openalex``'s incremental path over one snapshot part, a chunk and a batch a
    work: each work resolves, and its renames and merges run, in a chunk of its own, after
    the work before is written. Returns the resolver, for its report."""
    resolver = IdentityResolver(store, chunk=1)
    resolver.reuse_lookups = reuse_lookups
    step = Step("w", snapshot_part, "work-by-work",
                lambda: resolver.resolve(openalex.read_works(snapshot_part)),
                family=False)  # fmt: skip
    run_steps(store, [step], settings=load_settings(), batch_size=1)
    resolver.finish()
    return resolver


def load_source(
    store: GraphStore,
    settings: Settings,
    path: Path,
    read: Callable[[Path], Iterable[SourceGroup]],
    kind: str,
    *,
    chunk: int = 50,
) -> IdentityResolver:
    """``path`` read by a catalogue's ``read`` (``openalex.read_works``,
    ``bibtex.read_bibliography``…) and loaded as ``scholarkg load <kind>`` loads it: its
    own identity resolution, in chunks of ``chunk``. Returns the resolver, for its report."""
    resolver = IdentityResolver(store, chunk=chunk)
    step = Step(kind, path, kind, lambda: resolver.resolve(read(path)), family=False)
    run_steps(store, [step], settings=settings, batch_size=chunk, summary=LoadSummary())
    resolver.finish()
    return resolver
