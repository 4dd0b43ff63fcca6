"""What each source record stated about a work several records describe.

A work described by one record holds that record's values on its Paper (the node's
``source`` says whose). Once a second record describes it (an arXiv line and an OpenAlex
record, a preprint's second OpenAlex record), each record's shared values are kept on a
``Statement`` node of its own (``id`` the record's key, ``STATES`` to the Paper), and the
Paper's shared properties are *recomputed* from them, property by property: the value of
the best-ranked record that states one (``source_rank``; within a source, the work's own
record first), the citation count the largest any record states now. So a record reloaded
without a value it gave falls back to the next record's value, or to none, as a fresh load
of the same records gives; and a user sees what each source said:

    MATCH (s:Statement)-[:STATES]->(p:Paper {id: $id}) RETURN s.id, s.title, s.year

The first time a stored work meets a second record, its Paper's own values become the
first record's statement (``implicit_statements``): the values a single record wrote
are exactly that record's, so batch size and load order give the same statements. A value
on the Paper that no catalogue record gave (a benchmark family's, an S2 record's merged in)
takes part in the ranking under its giver's rank but is not a statement.

Single-record works pay nothing: most of a snapshot's works have one record, so keeping a
statement per record everywhere would store every title and abstract twice.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from scholarkg.loaders.source_rank import RANKED_FIELDS, SOURCE_SLOT, record_key, source_rank
from scholarkg.schema.records import Paper

__all__ = ["STATED_FIELDS", "implicit_statements", "own_keys", "restated", "statement_of"]

#: what a Statement holds besides its ``source``
STATED_FIELDS = (*RANKED_FIELDS, "citation_count")


def statement_of(rec: Paper) -> tuple[str, dict[str, Any]]:
    """``rec``'s key and statement: its source and the stated values it gives. An S2
    record's key is its corpus id (``s2:4242``)."""
    values: dict[str, Any] = {"source": rec.source}
    for name in STATED_FIELDS:
        value = getattr(rec, name)
        if value is not None:
            values[name] = value
    if rec.source == "s2" and rec.corpus_id is not None:
        return f"s2:{rec.corpus_id}", values
    return record_key(rec), values


def _giver_of(props: Mapping[str, Any]) -> dict[str, str]:
    """Per ranked property a stored Paper holds, the source that gave it (``named_by``, else
    the node's ``source``)."""
    source = str(props.get("source") or "")
    named = dict(str(x).split(":", 1) for x in props.get("named_by") or ())
    return {n: named.get(n, source) for n in RANKED_FIELDS if props.get(n) is not None}


#: the sources whose records keep statements, and the slot naming a record within its
#: source: the open catalogues' (``SOURCE_SLOT``) and S2's corpus id (``load s2``)
STATEMENT_SLOT = {**SOURCE_SLOT, "s2": "corpus_id"}


def _stored_key(
    source: str, props: Mapping[str, Any], paper_id: str, arriving: Mapping[str, str]
) -> str:
    """The key of ``source``'s record on a stored Paper: its id in the source's slot; where
    the slot is empty (a ``.bib`` entry with no DOI, a benchmark family's node that took an
    arXiv line's values), the key of the record of that source arriving now, which is that
    record again; else the Paper's id."""
    value = props.get(STATEMENT_SLOT[source])
    if value not in (None, ""):
        return f"{source}:{value}"
    return arriving.get(source) or f"{source}:{paper_id}"


def implicit_statements(
    paper_id: str, props: Mapping[str, Any], arriving: Mapping[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """The statements a stored Paper that has no Statement holds in its own values: each
    catalogue source that gave one of them (the node's ``source``, the ``named_by`` list of
    a graph loaded before statements were kept) stated those values; the citation count is
    the describing source's. A Paper one record described gives exactly that record's.
    ``arriving``: per source, the key of the record of it the chunk brings (see
    ``_stored_key``)."""
    out: dict[str, dict[str, Any]] = {}
    arriving = arriving or {}
    source = str(props.get("source") or "")
    if source in STATEMENT_SLOT:
        key = _stored_key(source, props, paper_id, arriving)
        out[key] = {"source": source}
        if props.get("citation_count") is not None:
            out[key]["citation_count"] = props["citation_count"]
    for name, giver in _giver_of(props).items():
        if giver in STATEMENT_SLOT:
            key = _stored_key(giver, props, paper_id, arriving)
            out.setdefault(key, {"source": giver})[name] = props[name]
    return out


def own_keys(slots: Mapping[str, Any]) -> set[str]:
    """The keys of a Paper's own records (the records whose id its slots hold)."""
    return {
        f"{source}:{slots[slot]}"
        for source, slot in STATEMENT_SLOT.items()
        if slots.get(slot) not in (None, "")
    }


def restated(
    stated: Mapping[str, Mapping[str, Any]],
    stored: Mapping[str, Any],
    own: Collection[str],
) -> dict[str, Any]:
    """The Paper's ranked properties, citation count, ``source``, ``named_by`` and
    ``stated_by`` (the statements' keys) from its
    records' statements ``stated`` (key → statement) and what the stored Paper holds that no
    catalogue record gave (``stored``: its properties, ``{}`` when new). Per property the
    value of the best-ranked statement that has one (so the order of the sources does not
    matter), the work's own record first within a source (its id holds the slot: the first
    loaded), then by key; ``None`` where
    none has one (a value a record dropped is not kept). The citation count is the largest
    stated now, or the stored one when no record states any."""
    candidates: list[tuple[tuple[int, bool, str], str, Mapping[str, Any]]] = [
        ((source_rank(s.get("source")), key not in own, key), str(s.get("source") or ""), s)
        for key, s in stated.items()
    ]
    kept: dict[str, dict[str, Any]] = {}
    for name, giver in _giver_of(stored).items():
        if giver not in STATEMENT_SLOT:  # a benchmark family's value: ranked, not a statement
            kept.setdefault(giver, {})[name] = stored[name]
    candidates += [((source_rank(g), False, ""), g, values) for g, values in kept.items()]
    candidates.sort(key=lambda c: c[0])
    out: dict[str, Any] = {}
    given: dict[str, str] = {}
    for name in RANKED_FIELDS:
        out[name] = None
        for _, giver, values in candidates:
            if values.get(name) is not None:
                out[name], given[name] = values[name], giver
                break
    # a date the best-ranked record gives to the year (Crossref's "2021") is made precise by a
    # record that agrees with it to the day ("2021-03-01"): the rank decides between dates
    # that differ, not between one date said more or less exactly
    date = out["date"]
    if isinstance(date, str):
        for _, giver, values in candidates:
            finer = values.get("date")
            if isinstance(finer, str) and len(finer) > len(out["date"]) and finer.startswith(date):
                out["date"], given["date"] = finer, giver
    counts = [s["citation_count"] for s in stated.values() if s.get("citation_count") is not None]
    out["citation_count"] = max(counts) if counts else stored.get("citation_count")
    best = candidates[0][1] if candidates else str(stored.get("source") or "")
    out["source"] = best or None
    out["named_by"] = sorted(f"{n}:{g}" for n, g in given.items() if g != best) or None
    out["stated_by"] = sorted(stated) or None
    return out
