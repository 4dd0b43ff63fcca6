"""A graph's property keys on the embedded FalkorDB: never more than its 16-bit numbering holds.

Why: FalkorDB 4.16 numbers a graph's property keys (attribute ids) with 16 bits. Past 65,536
distinct keys the numbers wrap: key 65,536 is key 0 (``id`` in a scholarkg graph), so
``n.p70000`` reads another key's value, and ``SET p.p65480 = 'x'`` overwrote a Paper's ``id``;
the damage is stored and survives a restart (found by a crash hunt: seven ``CREATE`` queries
of 11,000 keys each, under the length limit). scholarkg's loaders write a few dozen keys
from a whitelist; only a user's own write (``cypher``, the explorer with writes allowed) can
add thousands. So before such a write the keys the graph has and the names the query could
add (:func:`names_in`: every identifier of the text, an upper bound) are counted, and a write
that could pass the limit is refused (:class:`TooManyPropertyKeys`) before it is sent.
"""

from __future__ import annotations

from scholarkg.errors import InputError
from scholarkg.store.cypher_text import has_load_csv, views

#: how many property keys a graph can number (FalkorDB 4.16's ``Attribute_ID`` is 16-bit)
MAX_PROPERTY_KEYS = 65_536


class TooManyPropertyKeys(InputError):
    """A write that could give the graph more property keys than FalkorDB can number."""


def names_in(query: str) -> int:
    """At most how many new property keys ``query`` can make: the distinct identifiers of
    its text in any reading (keywords and variables included: an upper bound). Parameters
    travel in the text on this store (``CYPHER name={…}``), so a map parameter's keys count."""
    names: set[str] = set()
    for toks in views(query):
        names.update(t.text for t in toks if t.kind in ("word", "quoted"))
    return len(names)


def check_room(keys: int, query: str) -> None:
    """Refuse a writing ``query`` that could take a graph holding ``keys`` property keys past
    :data:`MAX_PROPERTY_KEYS`; ``LOAD CSV`` rows (whose header names keys the text does not)
    only while the graph is far from it."""
    could_add = names_in(query)
    if keys + could_add >= MAX_PROPERTY_KEYS:
        raise TooManyPropertyKeys(
            f"the graph has {keys:,} property keys and this write names {could_add:,} more: "
            f"the embedded FalkorDB numbers at most {MAX_PROPERTY_KEYS:,} per graph, and past "
            "that one key's values are read and written as another's (stored damage). Keep "
            "values under fewer keys (a list or a map property), or use another --graph"
        )
    if has_load_csv(query) and keys >= MAX_PROPERTY_KEYS // 2:
        raise TooManyPropertyKeys(
            f"the graph has {keys:,} property keys; a LOAD CSV write may add one per column of "
            f"its file, and the embedded FalkorDB numbers at most {MAX_PROPERTY_KEYS:,} per "
            "graph (past that, one key's values are read and written as another's)"
        )
