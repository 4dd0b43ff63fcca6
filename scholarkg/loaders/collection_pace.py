"""Fewer garbage collections while a load runs: a context manager around the record loop.

Why: a load makes millions of small objects (an OpenAlex work alone is ~45 records: its
reference stubs, CITES, authorships) while a chunk's records stay alive, and CPython's cyclic
collector runs a young collection every 700 allocations and, as the live set grows, full
collections that walk every live object. Making 400,000 record copies while keeping them
took 1.7-2.1 s with the default thresholds, 0.6 s with the collector off and 0.8 s with the
thresholds of that round (10,000-100,000 young allocations all gave 0.76-0.86 s). Records
and their dicts form no reference cycles, so collecting less often keeps no garbage longer
than the chunk that holds it; the collector still runs, and the thresholds are restored when
the load ends (also on an error).

Why 200,000 young allocations and not 20,000: a load's objects mostly die young (a chunk's
rows once sent, a block's records once resolved), so a count of live young objects rarely
reaches 200,000 and nearly every young collection is gone. In ``bench_openalex.py``'s update
of 110,000 works into a 1M-work graph: 646 collections in the load (7.0 s) at 20,000, 4
(1.3 s) at 200,000 (with a parse worker's shared fields sets, ``records.share_fields_sets``,
in the same run: 8 CPU-s less Python, a peak RSS of 444 MB instead of 481). Cycles are
still bounded by the full collections :func:`_freeze_survivors` runs as the load grows.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

#: young-generation allocations between collections, and the two older generations' counts
#: (CPython's defaults: 700, 10, 10)
LOAD_THRESHOLDS = (200_000, 10, 10)


#: whether the running load owns the permanent generation (:func:`fewer_collections`), so
#: that :func:`paused_collections` may move a chunk's survivors into it
_freezing = False

#: the interpreter's allocated blocks (``sys.getallocatedblocks``) just after the load's
#: last full collection (:func:`_freeze_survivors`)
_blocks_after_collection = 0

#: how many blocks the load may gain since its last full collection before the next one:
#: :data:`BLOCKS_GROWTH`, or this share of what it held then if more (see
#: :func:`_freeze_survivors`)
BLOCKS_GROWTH = 500_000
BLOCKS_GROWTH_SHARE = 0.25


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the body with :data:`LOAD_THRESHOLDS`; nested uses keep the outermost's.

    Inside it, what a resolved chunk leaves alive is frozen (:func:`paused_collections`):
    moved out of the collector's generations, so no later collection walks it again. In a
    quarterly-style update of a 200,000-work graph (``bench_openalex.py``, timed with
    ``gc.callbacks``) the load's collections took 20-23 s (~370 young ones of up to 0.2 s,
    each walking what the last chunk left alive, and ~35 older ones) and freed 23 objects
    in all — records, rows and their dicts make no cycles; frozen, 2.2-2.6 s. Frozen
    objects are still freed by reference counting as soon as the writer drops them; the
    permanent generation is handed back (``gc.unfreeze``) when the load ends, and collected
    whole whenever the load has grown by :data:`BLOCKS_GROWTH` blocks
    (:func:`_freeze_survivors`), so a cycle made meanwhile is collected then. A caller
    that froze objects of its own (``gc.get_freeze_count()``, e.g. before forking workers)
    keeps its permanent generation: the load then only raises the thresholds."""
    global _freezing, _blocks_after_collection
    before = gc.get_threshold()
    if before[0] >= LOAD_THRESHOLDS[0]:  # already raised (a load inside a load, a user's own)
        yield
        return
    gc.set_threshold(*LOAD_THRESHOLDS)
    own = gc.get_freeze_count() == 0
    _freezing = own
    _blocks_after_collection = sys.getallocatedblocks()
    try:
        yield
    finally:
        _freezing = False
        gc.set_threshold(*before)
        if own:
            gc.unfreeze()


@contextmanager
def paused_collections() -> Iterator[None]:
    """Run the body with the cyclic collector off (restored after, also on an error; left
    as it was when already off). For a step that makes and drops many records and dicts
    at once and keeps few (identity resolution of a chunk: ~40,000 reference ends, the
    look-up's rows): collected objects are freed by reference counting anyway (records make
    no cycles), so each young collection during it only walked what was still alive. Inside
    a load (:func:`fewer_collections`) the survivors are then frozen, else the collection
    the next allocation triggers walks them (up to 0.2 s a 2,000-work chunk), and every
    older collection after it again."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _freezing:
            _freeze_survivors()
        gc.enable()


def _freeze_survivors() -> None:
    """Move what is alive into the permanent generation; first collect everything, frozen
    included, when the interpreter holds :data:`BLOCKS_GROWTH` more allocated blocks (or
    :data:`BLOCKS_GROWTH_SHARE` more, if that is more) than after the load's last full
    collection.

    Why: a frozen object in a reference cycle is freed only when the permanent generation is
    collected, and a load makes some: the Neo4j driver's session, transaction and result
    of each statement refer to each other (and kept the statement's parameters: rows, a
    look-up's 40,000 keys, until ``store.neo4j.store.dropping_parameters`` let them go), an
    error's traceback refers to its frames. Frozen until the load ended, the driver's grew
    the loading process by ~1.5 MB a second, to 2.1 GB after 330,000 works into a 1M-work
    graph (``bench_openalex.py --backend neo4j --update-new 300000``). Whatever makes them,
    this keeps them within a bound. Blocks, not the permanent generation's object count:
    a few frozen objects can hold thousands of rows. A load that makes no cycles grows only by
    what it keeps (``IdentityResolver._finds``, up to its cap), so it is collected a few
    times a load: 8 collections, 3.7 s in all, in a 330,000-work update on Neo4j (each walks
    every live object)."""
    global _blocks_after_collection
    blocks = sys.getallocatedblocks()
    growth = max(BLOCKS_GROWTH, int(_blocks_after_collection * BLOCKS_GROWTH_SHARE))
    if blocks > _blocks_after_collection + growth:
        gc.unfreeze()
        gc.collect()
        _blocks_after_collection = sys.getallocatedblocks()
    gc.freeze()
