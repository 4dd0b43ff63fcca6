"""The managed Neo4j's class-data archive (``store/neo4j/class_archive.py``): recorded once
per launcher build, mapped by every start whose Java recorded it, never a reason for a start to
fail (a damaged, stale or foreign archive is left out by us or by the JVM)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from scholarkg.store.neo4j import class_archive
from scholarkg.store.neo4j.server import (
    ManagedNeo4j,
    java_available,
    java_version_text,
    launcher_dir,
    record_class_archive,
)

needs_java = pytest.mark.skipif(
    shutil.which("java") is None, reason="the class-data archive is the JVM's (no java on PATH)"
)


def _mapped(pid: int) -> set[str]:
    """The files the process has mapped (``/proc/<pid>/maps``)."""
    paths = set()
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/"):
            paths.add(parts[5])
    return paths


def _stamped(target: Path, archive: bytes, stamp: str) -> None:
    target.mkdir(parents=True, exist_ok=True)
    class_archive.archive_path(target).write_bytes(archive)
    path = class_archive.archive_path(target)
    path.with_name(path.name + class_archive.STAMP_SUFFIX).write_text(stamp, encoding="utf-8")


def _java_text() -> str:
    text = java_version_text()
    assert text is not None
    return text


@needs_java
def test_the_archive_is_mapped_only_when_this_java_recorded_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "target"
    java = _java_text()
    assert class_archive.start_arguments(target, java) == []  # none recorded
    _stamped(target, b"recorded", java)
    expected = [f"-XX:SharedArchiveFile={class_archive.archive_path(target)}"]
    assert class_archive.start_arguments(target, java) == expected
    monkeypatch.setenv("SCHOLARKG_NEO4J_CLASS_ARCHIVE", "0")
    assert class_archive.start_arguments(target, java) == []

    def fail(path: Path) -> None:
        raise AssertionError(f"recorded {path} while turned off")

    assert class_archive.ensure(target, java, fail) is False  # off: nothing recorded either
    monkeypatch.delenv("SCHOLARKG_NEO4J_CLASS_ARCHIVE")
    _stamped(target, b"recorded", 'openjdk version "11.0.2"\n')  # another Java recorded it
    assert class_archive.start_arguments(target, java) == []
    class_archive.discard(target)  # what a rebuild of the launcher does first
    assert list(target.iterdir()) == []


@needs_java
def test_a_damaged_archive_never_stops_the_jvm(tmp_path: Path) -> None:
    """What the mapping relies on when our stamp matches but the file does not (a disk
    error, a copy cut short): the JVM leaves the archive out and starts (-Xshare:auto)."""
    bad = tmp_path / "bad.jsa"
    bad.write_bytes(bytes(range(256)) * 4096)
    java = shutil.which("java")
    assert java is not None
    done = subprocess.run(
        [java, f"-XX:SharedArchiveFile={bad}", "-version"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "version" in done.stderr


@pytest.mark.neo4j
def test_the_managed_server_maps_the_recorded_archive(managed_neo4j: ManagedNeo4j) -> None:
    """``make neo4j-launcher`` (which make test runs first) records the archive, so the
    session's server, started after it, has it mapped."""
    target = launcher_dir() / "target"
    assert class_archive.usable(target, _java_text()), (
        "no class-data archive for this Java: `make neo4j-launcher` records it"
    )
    pid = managed_neo4j.status(details=False).pid
    assert pid is not None
    assert str(class_archive.archive_path(target)) in _mapped(pid)
    assert "[cds" not in managed_neo4j.log_file.read_text(errors="replace")  # no JVM warning


# records a throw-away server's classes and starts another with them: ~90 s (two starts, one
# of them recording); make test's budget: runs in make test-marked (CI runs both)
@pytest.mark.slow
def test_a_recorded_archive_starts_a_server_that_answers(tmp_path: Path) -> None:
    if reason := java_available():
        pytest.skip(reason)
    archive = tmp_path / "classes.jsa"
    record_class_archive(archive)
    assert archive.stat().st_size > 10 << 20  # Neo4j's, GDS's and APOC's classes: ~170 MB
    server = ManagedNeo4j(tmp_path / "neo4j", browser=False)
    server.jvm_options = [f"-XX:SharedArchiveFile={archive}"]
    try:
        st = server.start()
        assert st.pid is not None and st.versions.get("gds")
        assert str(archive) in _mapped(st.pid)
        assert "[cds" not in server.log_file.read_text(errors="replace")
    finally:
        server.stop()
