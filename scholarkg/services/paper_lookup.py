"""Any id a user has for a work → the Paper node that holds it: one function every command uses.

A user names a work by what they have at hand: a DOI (``10.1/x``, ``doi:10.1/x``,
``https://doi.org/10.1/x``), an OpenAlex id (``W123``, its URL), an arXiv id (``2401.00001``,
``arXiv:2401.00001v2``, an abs/pdf URL), a Semantic Scholar corpus id (``s2:123``,
``CorpusId:123``) or paper sha (40 hex digits, an S2 URL), a PubMed / PMC / MAG id, an alias
identity resolution kept (a second DOI, a merged-away id: ``PaperAlias``), or the node's own
``id``. :func:`resolve_papers` turns each into every key it could be (a bare number may be a
corpus id, a PMID or a MAG id), asks the graph for all of them in one query
(``papers/resolve``) and keeps, per reference, the Papers found; :func:`resolve_paper`
insists on exactly one and says which ids it tried when there is none, or which Papers when
there are several.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scholarkg.errors import InputError
from scholarkg.schema.ids import (
    PAPER_ID_SCHEMES,
    normalize_arxiv_id,
    normalize_doi,
    normalize_mag_id,
    normalize_openalex_id,
    normalize_pmcid,
    normalize_pmid,
)
from scholarkg.store.base import GraphStore

__all__ = ["PaperRef", "candidate_keys", "paper_cards", "resolve_paper", "resolve_papers"]

_SHA = re.compile(r"^(?:https?://(?:www\.|api\.)?semanticscholar\.org/\S*?/)?([0-9a-f]{40})/?$")
_CORPUS = re.compile(r"^(?:s2:|corpusid:|corpus_id:|corpus:)\s*(\d+)$", re.IGNORECASE)
_SCHEMED = re.compile(r"^([a-z0-9]+):(.+)$", re.IGNORECASE)
#: the query's list parameter per kind of key
_KINDS = ("doi", "arxiv", "corpus", "openalex", "mag", "pmid", "pmcid", "s2paper")


@dataclass(frozen=True)
class PaperRef:
    """A Paper a reference resolved to: its node id, title, year, whether it is a stub (no
    source record described it: label ``Stub``) and which kind of id matched."""

    id: str
    title: str | None = None
    year: int | None = None
    stub: bool = False
    by: str = "id"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "year": self.year, "stub": self.stub}


@dataclass
class _Keys:
    """The lookups one reference asks for: scheme-prefixed keys, and per kind the value."""

    keys: set[str] = field(default_factory=set)
    values: dict[str, set[Any]] = field(default_factory=lambda: {k: set() for k in _KINDS})

    def add(self, kind: str, value: Any, key: str) -> None:
        self.values[kind].add(value)
        self.keys.add(key)


def candidate_keys(ref: str) -> _Keys:
    """Every lookup ``ref`` may stand for (see the module doc); always its text as a node id."""
    text = ref.strip()
    out = _Keys()
    if not text:
        return out
    out.keys.add(text)  # a node id, or an alias key as written
    lowered = text.lower()
    if m := _CORPUS.match(text):
        out.add("corpus", int(m.group(1)), f"s2:{int(m.group(1))}")
    if m := _SHA.match(lowered):
        out.add("s2paper", m.group(1), f"s2paper:{m.group(1)}")
    scheme, rest = "", text
    if (m := _SCHEMED.match(text)) and not text.lower().startswith(("http:", "https:")):
        scheme, rest = m.group(1).lower(), m.group(2).strip()
    value = rest if scheme else text
    web = lowered.startswith(("http://", "https://"))
    d = normalize_doi(value) if scheme in ("doi", "") or web else None
    a = normalize_arxiv_id(text) if scheme in ("arxiv", "") else None
    o = normalize_openalex_id(value) if scheme in ("openalex", "") else None
    p = normalize_pmid(value) if scheme in ("pmid", "") else None
    pmc = scheme in ("pmcid", "pmc") or (
        not scheme and lowered.startswith(("pmc", "https://www.ncbi"))
    )
    c = normalize_pmcid(value) if pmc else None
    g = normalize_mag_id(value) if scheme in ("mag", "") else None
    for kind, found, prefix in (
        ("doi", d, "doi"), ("arxiv", a, "arxiv"), ("pmid", p, "pmid"), ("pmcid", c, "pmcid"),
        ("mag", g, "mag"),
    ):  # fmt: skip
        if found:
            out.add(kind, found, f"{prefix}:{found}")
    if o and o.startswith("W"):  # works only: A…, S… are authors and sources
        out.add("openalex", o, f"openalex:{o}")
    if scheme in ("s2paper",) and _SHA.match(rest.lower()):
        out.add("s2paper", rest.lower(), f"s2paper:{rest.lower()}")
    if not scheme and text.isdigit():
        out.add("corpus", int(text), f"s2:{int(text)}")
    if scheme and f"{scheme}:" in PAPER_ID_SCHEMES:
        out.keys.add(f"{scheme}:{rest}")
    return out


def resolve_papers(store: GraphStore, refs: Iterable[str]) -> dict[str, list[PaperRef]]:
    """``{reference: [Papers it names]}`` (an empty list: none), one server round trip."""
    wanted = list(dict.fromkeys(r for r in refs))
    per_ref = {r: candidate_keys(r) for r in wanted}
    params: dict[str, list[Any]] = {k: [] for k in _KINDS}
    ids: set[str] = set()
    for keys in per_ref.values():
        ids |= keys.keys
        for kind, values in keys.values.items():
            params[kind].extend(values)
    rows = store.run_named(
        "papers/resolve",
        {"ids": sorted(ids), **{k: sorted(set(v)) for k, v in params.items()}},
    )
    by_key: dict[str, dict[str, PaperRef]] = {}
    for r in rows:
        paper = PaperRef(
            id=str(r["id"]),
            title=r.get("title"),
            year=int(r["year"]) if r.get("year") is not None else None,
            stub=bool(r.get("stub")),
            by=str(r["by"]),
        )
        by_key.setdefault(str(r["key"]), {}).setdefault(paper.id, paper)
    out: dict[str, list[PaperRef]] = {}
    for ref, keys in per_ref.items():
        found: dict[str, PaperRef] = {}
        for key in sorted(keys.keys):
            for pid, paper in by_key.get(key, {}).items():
                # the node's own id wins over the same Paper found through a slot
                if pid not in found or paper.by == "id":
                    found[pid] = paper
        out[ref] = sorted(found.values(), key=lambda p: p.id)
    return out


def resolve_paper(store: GraphStore, ref: str, *, field_name: str = "work") -> PaperRef:
    """The one Paper ``ref`` names; an :class:`InputError` when it names none or several."""
    if not ref.strip():
        raise InputError("no work given: pass a DOI, OpenAlex, arXiv or S2 id", field=field_name)
    found = resolve_papers(store, [ref])[ref]
    if len(found) == 1:
        return found[0]
    if not found:
        tried = ", ".join(sorted(candidate_keys(ref).keys)) or ref
        raise InputError(
            f"no Paper in this graph has the id {ref!r} (looked for {tried} as node id, alias, "
            "DOI, OpenAlex, arXiv, S2, PubMed or MAG id)",
            field=field_name,
        )
    listed = ", ".join(f"{p.id} (by {p.by})" for p in found[:5])
    raise InputError(
        f"{ref!r} names {len(found)} Papers: {listed}; give a scheme, e.g. doi:…, s2:…, pmid:…",
        field=field_name,
    )


def paper_cards(store: GraphStore, ids: Sequence[str]) -> dict[str, PaperRef]:
    """Title, year and stub flag of each of ``ids`` (unknown ids left out), one query."""
    if not ids:
        return {}
    rows = store.run_named("papers/cards", {"ids": list(dict.fromkeys(ids))})
    return {
        str(r["id"]): PaperRef(
            id=str(r["id"]),
            title=r.get("title"),
            year=int(r["year"]) if r.get("year") is not None else None,
            stub=bool(r.get("stub")),
        )
        for r in rows
    }
