"""A work's reference list as one record, from the reader through resolution to the writer.

Why: an OpenAlex work cites about 20 others, and each reference used to travel as two
pydantic records (a stub ``Paper`` known only by its id, and a ``Citation``) through identity
resolution, the checkpoint digest and the writer's buffers: 40 of a work's ~50 records, most
of an incremental load's Python time. A :class:`ReferenceList` carries the same statements as
plain strings. Identity resolution (``loaders/identity.py``) maps its ends in bulk and says
which stubs still have to be written; the writer (``loaders/writer.py``) turns it into the
same stub rows and ``CITES`` rows the two records gave. Any case the bulk path does not take
(a reference landing on another work's key, a statement kept in an edge's ``also`` list) is
handed back as those records (:meth:`ReferenceList.records`), so the graph is the same either
way (``tests/loaders/test_reference_lists.py`` checks both).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from scholarkg.schema.records import Citation, Paper

#: the stub and the edge every reference of a list is a copy of (``Record.replaced``)
_STUB = Paper.model_construct(id="openalex:W0", openalex_id="W0")
_CITES = Citation.model_construct(start="", end="", from_openalex=True)


@dataclass(frozen=True, slots=True)
class ReferenceList:
    """The works ``start`` cites, as its source record lists them (repeats kept).

    ``ends``: the cited works' Paper ids; ``values``: each one's value in the id slot
    ``slot`` (OpenAlex: ``openalex:W1`` has ``openalex_id`` ``W1``), what its stub holds;
    ``stubs``: the positions in ``ends`` whose stub is written (all of them as read; identity
    resolution keeps those whose node is neither stored nor written by its chunk);
    ``props``: what every ``CITES`` edge of the list carries (``from_openalex``);
    ``stated``: the positions in ``ends`` whose edge the graph already holds with ``props``
    (identity resolution reads them, ``IdentityResolver._skip_stored_references``): the
    writer counts them and sends nothing;
    ``nodes``: per end, the internal node id the store's look-up read for its Paper (as
    text, as the look-up reads it and the writer sends it), ``""`` where none was read (a
    Paper the chunk creates or renames), empty when no end has one (identity resolution sets
    them: ``IdentityResolver._nodes``). The writer hands them to the store with the ``CITES``
    rows, which takes such an end by its node and checks its id.
    """

    start: str
    ends: tuple[str, ...]
    values: tuple[str, ...]
    stubs: tuple[int, ...]
    slot: str = "openalex_id"
    props: tuple[tuple[str, Any], ...] = (("from_openalex", True),)
    stated: tuple[int, ...] = ()
    nodes: tuple[str, ...] = ()

    @classmethod
    def openalex(cls, start: str, works: list[str]) -> ReferenceList:
        """An OpenAlex work's ``referenced_works`` (bare W ids, normalised by the reader)."""
        ends = tuple(f"openalex:{w}" for w in works)
        return cls(start, ends, tuple(works), tuple(range(len(ends))))

    def stub_row(self, i: int) -> dict[str, Any]:
        """The row ``RecordWriter`` writes for the stub of ``ends[i]`` (``Paper.row()``)."""
        return {"id": self.ends[i], self.slot: self.values[i]}

    def stub(self, i: int) -> Paper:
        """The stub Paper of ``ends[i]`` as a record (the records path)."""
        return _STUB.replaced({"id": self.ends[i], self.slot: self.values[i]})

    def records(self) -> list[Paper | Citation]:
        """The list as the records it stands for: its stubs, then one ``Citation`` per end."""
        props = dict(self.props)
        if props != {"from_openalex": True}:
            base = Citation.model_construct(start="", end="", **props)
        else:
            base = _CITES
        out: list[Paper | Citation] = [self.stub(i) for i in self.stubs]
        out += [base.replaced({"start": self.start, "end": end}) for end in self.ends]
        return out

    def with_ends(
        self,
        start: str,
        ends: tuple[str, ...],
        stubs: tuple[int, ...],
        nodes: tuple[str, ...] = (),
    ) -> ReferenceList:
        """The list resolved: its ends mapped to the works' keys, the stubs left to write,
        the ends' nodes where a look-up read them."""
        return ReferenceList(start, ends, self.values, stubs, self.slot, self.props, nodes=nodes)

    def with_stated(self, stated: tuple[int, ...]) -> ReferenceList:
        """The list with the positions of the edges the graph already holds as it states."""
        return replace(self, stated=stated)

    def weight(self) -> int:
        """How many records this one stands for (the writer's and checkpoint's counts)."""
        return len(self.stubs) + len(self.ends)
