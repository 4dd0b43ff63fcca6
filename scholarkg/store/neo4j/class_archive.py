"""The managed Neo4j's class-data archive: the JVM's classes recorded once, mapped at start.

Why: a managed Neo4j spends most of its start loading, verifying and linking the classes of
Neo4j, GDS and APOC (tens of thousands). On 2 cores a start took 22.9 s and 31.8 CPU-s to its
first Bolt answer; with the classes mapped from an archive the JVM recorded once (Java's
application class-data sharing, JEP 350: ``-XX:ArchiveClassesAtExit`` writes it when a
recording server stops, ``-XX:SharedArchiveFile`` maps it), 13.9 s and 20.7 CPU-s (medians,
``benchmarks/bench_neo4j_start.py``; docs/performance.md, "The managed Neo4j's start").
Every ``db start``, every test session and every benchmark starts one.

The archive belongs to one launcher build and one Java: it sits in the launcher's
``target/`` (removed when the launcher is rebuilt) beside a stamp holding ``java -version``'s
text; a start maps it only when that text is the running Java's. The JVM checks the archive
again itself (class path, base archive, a damaged file) and starts without it, printing a
warning to the launcher log, if anything does not match: an archive can make a start faster,
never make it fail. Recording runs a throw-away server (its own temporary home, never a
user's) to its first answer and stops it: 1-1.5 min, once per build, after ``mvn package``
(``make neo4j-launcher``, or the first start on a new machine). ``SCHOLARKG_NEO4J_CLASS_ARCHIVE=0``
turns both the recording and the mapping off.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from scholarkg.errors import ScholarKGError
from scholarkg.store.process import exclusive_lock

log = logging.getLogger(__name__)

#: the archive's file name in the launcher's ``target/``
ARCHIVE_NAME = "neo4j-classes.jsa"
#: … and its stamp's: the text ``java -version`` printed when it was recorded
STAMP_SUFFIX = ".java"


def archive_path(target: Path) -> Path:
    return target / ARCHIVE_NAME


def enabled() -> bool:
    """Off when ``SCHOLARKG_NEO4J_CLASS_ARCHIVE`` is ``0``/``false``/``no``."""
    return os.environ.get("SCHOLARKG_NEO4J_CLASS_ARCHIVE", "1").lower() not in ("0", "false", "no")


def usable(target: Path, java: str) -> bool:
    """Whether ``target`` holds an archive recorded by the Java whose ``java -version`` text
    is ``java`` (the server module reads it once per start)."""
    archive = archive_path(target)
    stamp = archive.with_name(archive.name + STAMP_SUFFIX)
    if not (archive.is_file() and stamp.is_file()):
        return False
    return stamp.read_text(encoding="utf-8") == java


def start_arguments(target: Path, java: str) -> list[str]:
    """The JVM option that maps the archive, or none (no usable archive, or turned off)."""
    if not enabled() or not usable(target, java):
        return []
    return [f"-XX:SharedArchiveFile={archive_path(target)}"]


def discard(target: Path) -> None:
    """Remove the archive and its stamp (the launcher's jars are about to change)."""
    archive = archive_path(target)
    archive.unlink(missing_ok=True)
    archive.with_name(archive.name + STAMP_SUFFIX).unlink(missing_ok=True)


def ensure(
    target: Path,
    java: str,
    record: Callable[[Path], None],
    progress: Callable[[str], None] | None = None,
) -> bool:
    """Record the archive unless a usable one is there; returns whether one is usable after.

    ``java`` is the ``java -version`` text of the Java that will run the servers (the
    stamp); ``record(path)`` runs a server whose JVM writes its classes to ``path`` as it
    exits (``server.record_class_archive``: both passed in, as the server module imports
    this one). A recording that fails is logged and reported through ``progress``, not
    raised: the server starts without an archive as it always did, only slower."""
    if not enabled():
        return False
    if usable(target, java):
        return True
    target.mkdir(parents=True, exist_ok=True)
    # two processes building at once (make targets run in parallel): one records
    with exclusive_lock(target / ".class-archive.lock", 900.0, "the Neo4j class archive"):
        if usable(target, java):
            return True
        if progress:
            progress(
                "recording the managed Neo4j's class-data archive (once per build, 1-1.5 min: "
                "later starts take about half the time)"
            )
        archive = archive_path(target)
        partial = archive.with_name(archive.name + ".partial")
        partial.unlink(missing_ok=True)
        began = time.monotonic()
        try:
            record(partial)
        except (ScholarKGError, OSError) as err:
            log.warning("could not record the Neo4j class-data archive: %s", err)
            if progress:
                progress(f"could not record the class-data archive ({err}); starts stay slower")
            partial.unlink(missing_ok=True)
            return False
        if not partial.is_file() or partial.stat().st_size == 0:
            if progress:
                progress("the JVM wrote no class-data archive; starts stay slower")
            return False
        partial.replace(archive)
        stamp = archive.with_name(archive.name + STAMP_SUFFIX)
        stamp.write_text(java, encoding="utf-8")
        if progress:  # the recording prints nothing while it runs: say that it is over
            size = archive.stat().st_size / 2**20
            progress(
                f"class-data archive recorded: {size:,.0f} MB in {time.monotonic() - began:.0f} s"
            )
        return True
