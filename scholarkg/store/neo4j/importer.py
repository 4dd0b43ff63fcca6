"""``scholarkg load bulk --backend neo4j``: a new Neo4j database through Neo4j's offline importer.

Why the importer: it writes the store files directly (no transactions, no MERGE lookups), which
is how Neo4j itself says to build a large database; the ``UNWIND … MERGE`` writer is for
incremental loads. Steps, each needing the previous one:

1. the JSONL papers and the edge list are read with the same columnar reader as the embedded
   bulk load (``bulk_arrow``) and written as the importer's CSVs (``id:ID(Paper)`` plus typed
   property columns; ``:START_ID(Paper),:END_ID(Paper)``);
2. the managed server is stopped, ``neo4j-admin database import full`` (``org.neo4j.cli.
   AdminTool``, from the launcher's Maven class path) replaces the ``neo4j`` database;
   relationships whose endpoint is not a node are skipped and counted, as on the embedded store;
3. the server is started again and scholarkg's schema (constraints, indexes) is created once.

Only a managed server whose database holds no nodes is replaced (like the embedded bulk load,
which refuses a graph that has nodes); an external server (``NEO4J_URI``) is not ours to stop.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scholarkg.errors import InputError, NotSupported, ServerError
from scholarkg.schema.ddl import check_label, check_property, check_rel_type
from scholarkg.schema.text import collect_cleaning, describe_cleaning, note_cleaning
from scholarkg.store.neo4j.server import LAUNCHER_JAR, ManagedNeo4j, build_launcher

log = logging.getLogger(__name__)


@dataclass
class Neo4jImportResult:
    nodes: int
    relationships: int
    skipped_relationships: int
    convert_seconds: float
    import_seconds: float
    schema_seconds: float
    seconds: float
    #: what the text sanitiser changed (``Label.field: what in n value(s)``)
    cleaned: list[str] = field(default_factory=list)


def _neo4j_type(arrow_type: object) -> str | None:
    """The importer's column type for an Arrow type (None: a column it cannot take)."""
    import pyarrow as pa

    t = arrow_type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_integer(t):
        return "long"
    if pa.types.is_floating(t):
        return "double"
    if pa.types.is_boolean(t):
        return "boolean"
    return None


def write_import_csvs(
    papers: Path, edges: Path | None, out: Path, *, label: str
) -> tuple[Path, Path | None, list[str], bool]:
    """The importer's node and relationship CSVs; returns them, the columns left out
    (nested objects and lists: the importer's CSV has no place for them) and whether a value
    spans lines (the importer then needs ``--multiline-fields``, which it says slows it, so
    it is asked for only then).

    Text is cleaned as the record layer cleans it (``bulk_arrow.clean_string_columns``: NUL
    and control characters removed, CR/CRLF made LF, BOMs removed), counted in the active
    ``schema.text`` collector.

    The nodes are read with Arrow's JSON reader directly, not the embedded bulk loader's
    stricter columnar reader: that one hands floats and nested values to its line reader to
    match it byte for byte, while here a float column is simply a ``double`` column.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    from scholarkg.store.falkordb.bulk import _edge_format
    from scholarkg.store.falkordb.bulk_arrow import (
        Unsupported,
        _read_json,
        _string_ids,
        clean_string_columns,
        read_edge_endpoints,
        stripped_keys,
    )

    try:
        table, cleaned = clean_string_columns(_read_json(papers))
        if "id" not in table.column_names:
            raise Unsupported("no id column")
        cleaned += stripped_keys(table.column("id"))
        ids = _string_ids(table.column("id"))
    except Unsupported as err:
        raise InputError(
            f"cannot read the papers for Neo4j's importer ({err}); 'scholarkg load bulk' on "
            "the embedded store names the offending line",
            path=papers,
        ) from None
    if pc.count_distinct(ids).as_py() != len(ids):
        raise InputError("duplicate ids", path=papers, field="id")
    columns, names, left_out = [ids], [f"id:ID({label})"], []
    multiline = False
    for name in table.column_names:
        if name == "id":
            continue
        kind = _neo4j_type(table.schema.field(name).type)
        if kind is None:
            left_out.append(name)
            continue
        check_property(name)
        col = table.column(name)
        if kind == "string" and not multiline:
            multiline = bool(pc.any(pc.match_substring(col, "\n")).as_py())
        columns.append(col)
        names.append(f"{name}:{kind}")
    for name, what, n in cleaned:  # the record layer's phrases and counts
        note_cleaning(label, name, what, n)
    nodes_csv = out / "nodes.csv"
    pacsv.write_csv(pa.table(columns, names=names), str(nodes_csv))
    rels_csv = None
    if edges is not None:
        try:
            a, b, _first, _props = read_edge_endpoints(edges, _edge_format(edges))
        except Unsupported as err:
            raise InputError(
                f"the importer path takes start,end edge lists only ({err})", path=edges
            ) from None
        rels_csv = out / "relationships.csv"
        pacsv.write_csv(
            pa.table([a, b], names=[f":START_ID({label})", f":END_ID({label})"]), str(rels_csv)
        )
    return nodes_csv, rels_csv, left_out, multiline


def import_into_managed(
    server: ManagedNeo4j,
    papers: Path,
    edges: Path | None,
    *,
    label: str = "Paper",
    rel_type: str = "CITES",
    node_count: int,
    progress: Callable[[str], None] | None = None,
) -> Neo4jImportResult:
    """Replace the managed server's empty ``neo4j`` database by ``papers`` + ``edges``.

    ``node_count`` is the database's current node count (the caller's store read it); a
    database that holds nodes is refused, never overwritten.
    """
    check_label(label)
    check_rel_type(rel_type)
    if node_count:
        raise NotSupported(
            f"the Neo4j database holds {node_count:,} nodes: the offline importer builds a NEW "
            "database; 'scholarkg --backend neo4j db reset' first, or load incrementally"
        )
    say = progress or (lambda message: log.info("%s", message))
    t0 = time.perf_counter()
    target = build_launcher()
    with tempfile.TemporaryDirectory(prefix="scholarkg-import-") as tmp:
        work = Path(tmp)
        say("writing the importer's CSV files")
        with collect_cleaning() as cleaning:
            nodes_csv, rels_csv, left_out, multiline = write_import_csvs(
                papers, edges, work, label=label
            )
        if left_out:
            log.warning("columns the importer cannot type were left out: %s", left_out)
        t1 = time.perf_counter()
        say("stopping Neo4j for the offline import")
        server.stop()
        report = work / "import.report"
        cmd = [
            shutil.which("java") or "java",
            f"-Xmx{server.heap}",
            "-cp",
            f"{target / LAUNCHER_JAR}:{target / 'lib' / '*'}",
            "org.neo4j.cli.AdminTool",
            "database",
            "import",
            "full",
            f"--nodes={label}={nodes_csv}",
            "--overwrite-destination=true",
            "--skip-bad-relationships=true",
            "--bad-tolerance=-1",
            f"--report-file={report}",
            "neo4j",
        ]
        if multiline:
            cmd.insert(-1, "--multiline-fields=true")
        if rels_csv is not None:  # right after --nodes: these options take several files
            cmd.insert(cmd.index(f"--nodes={label}={nodes_csv}") + 1,
                       f"--relationships={rel_type}={rels_csv}")  # fmt: skip
        say("running Neo4j's importer")
        log_path = server.home / "import.log"
        with open(log_path, "w", encoding="utf-8") as fh:
            code = subprocess.run(
                cmd,
                stdout=fh,
                stderr=subprocess.STDOUT,
                env={**os.environ, "NEO4J_HOME": str(server.dbms_dir), "NEO4J_CONF": ""},
                check=False,
            ).returncode
        text = log_path.read_text(errors="replace")
        if code != 0 or "IMPORT DONE" not in text:
            tail = "\n".join(text.splitlines()[-12:])
            server.start()
            raise ServerError(f"Neo4j's importer failed (code {code}; log {log_path}):\n{tail}")
        skipped = 0
        if report.exists():
            skipped = sum(1 for line in report.read_text(errors="replace").splitlines() if line)
        t2 = time.perf_counter()
        say("starting Neo4j")
        server.start()
    return Neo4jImportResult(
        nodes=_imported(text, "nodes"),
        relationships=_imported(text, "relationships"),
        skipped_relationships=skipped,
        convert_seconds=t1 - t0,
        import_seconds=t2 - t1,
        schema_seconds=0.0,
        seconds=time.perf_counter() - t0,
        cleaned=describe_cleaning(cleaning),
    )


def _imported(log_text: str, what: str) -> int:
    """``Imported: … N nodes / M relationships`` from the importer's summary."""
    import re

    m = re.search(rf"^\s*(\d+) {what}\s*$", log_text, re.M)
    return int(m.group(1)) if m else 0
