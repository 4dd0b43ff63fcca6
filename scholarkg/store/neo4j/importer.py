"""``scholarkg load bulk --backend neo4j``: a new Neo4j database through Neo4j's offline importer.

Why the importer: it writes the store files directly (no transactions, no MERGE lookups), which
is how Neo4j itself says to build a large database; the ``UNWIND … MERGE`` writer is for
incremental loads. Steps, each needing the previous one:

1. the node files (JSONL or Arrow) and the edge files are read with the same columnar reader
   as the embedded bulk load (``store/bulk_files.py``, neither backend's) and written as the
   importer's CSVs (``id:ID(<Label>)`` plus typed property columns;
   ``:START_ID(<Label>),:END_ID(<Label>)`` plus the edge's properties); lists become array
   columns (``string[]``, ``long[]``…) whose elements are joined by a character cleaned text
   cannot hold (:data:`ARRAY_DELIMITER`);
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
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError, NotSupported, ServerError
from scholarkg.schema.ddl import check_label, check_property, check_rel_type
from scholarkg.schema.text import collect_cleaning, describe_cleaning, note_cleaning
from scholarkg.store.bulk_files import (
    Cleaned,
    EdgeSource,
    NodeSource,
    Unsupported,
    clean_string_columns,
    edge_format,
    read_edge_endpoints,
    read_table,
    string_ids,
    stripped_keys,
    without_empty_columns,
)
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


#: between the elements of an array cell (``--array-delimiter``). The importer has no escape
#: for it, so it is a character no stored text holds: U+001F is a C0 control, which the
#: record layer's cleaning removes from every string (``schema.text.clean_text``), and list
#: elements are cleaned here before they are joined.
ARRAY_DELIMITER = "\x1f"


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
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = _neo4j_type(t.value_type)  # type: ignore[attr-defined]  # pyarrow-stubs: DataType has no value_type; ListType has
        return f"{inner}[]" if inner and not inner.endswith("[]") else None
    return None


def _array_cells(col: Any, name: str) -> tuple[Any, Cleaned]:
    """A list column as the importer's array cells: each list's elements (strings cleaned
    as the record layer cleans them) joined by :data:`ARRAY_DELIMITER`; a missing list
    stays missing (an empty cell: no property)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    values = lists.flatten()
    cleaned: Cleaned = []
    if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
        table, cleaned = clean_string_columns(pa.table({name: values}))
        values = table.column(name).combine_chunks().cast(pa.string())
        if pc.any(pc.match_substring(values, ARRAY_DELIMITER)).as_py():  # cleaning removes it
            raise InputError(f"an element of {name!r} holds the importer's array delimiter")
    else:
        values = values.cast(pa.string())
    rebuilt = pa.ListArray.from_arrays(
        pc.subtract(lists.offsets, lists.offsets[0]), values, mask=lists.is_null()
    )
    return pc.binary_join(rebuilt, ARRAY_DELIMITER), cleaned


def _typed_columns(
    table: Any, *, skip: tuple[str, ...]
) -> tuple[list[Any], list[str], list[str], bool, Cleaned]:
    """``(columns, importer headers, names left out, multiline, cleaned)`` of ``table``'s
    property columns: scalars as typed columns, lists as array columns, anything else
    (nested objects, lists of objects) left out."""
    import pyarrow.compute as pc

    columns: list[Any] = []
    headers: list[str] = []
    left_out: list[str] = []
    cleaned: Cleaned = []
    multiline = False
    for name in table.column_names:
        if name in skip:
            continue
        kind = _neo4j_type(table.schema.field(name).type)
        if kind is None:
            left_out.append(name)
            continue
        check_property(name)
        col = table.column(name)
        if kind.endswith("[]"):
            col, done = _array_cells(col, name)
            cleaned += done
        if kind.startswith("string") and not multiline:
            multiline = bool(pc.any(pc.match_substring(col, "\n")).as_py())
        columns.append(col)
        headers.append(f"{name}:{kind}")
    return columns, headers, left_out, multiline, cleaned


def write_node_csv(path: Path, out_csv: Path, *, label: str) -> tuple[list[str], bool]:
    """The importer's CSV of one JSONL node file (``id:ID(<label>)`` + typed property
    columns); returns the columns left out and whether a value spans lines.

    Text is cleaned as the record layer cleans it (``bulk_files.clean_string_columns``: NUL
    and control characters removed, CR/CRLF made LF, BOMs removed), counted in the active
    ``schema.text`` collector.

    The nodes are read with the shared reader's table (``bulk_files.read_table``), without
    the embedded bulk loader's checks of the types ``GRAPH.BULK`` encodes: that one hands
    floats and nested values to its line reader to match it byte for byte, while here a
    float column is simply a ``double`` column.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    check_label(label)
    try:
        table, cleaned = clean_string_columns(without_empty_columns(read_table(path)))
        if "id" not in table.column_names:
            raise Unsupported("no id column")
        cleaned += stripped_keys(table.column("id"))
        ids = string_ids(table.column("id"))
    except Unsupported as err:
        raise InputError(
            f"cannot read the {label} nodes for Neo4j's importer ({err}); 'scholarkg load bulk' "
            "on the embedded store names the offending line",
            path=path,
        ) from None
    if pc.count_distinct(ids).as_py() != len(ids):
        raise InputError("duplicate ids", path=path, field="id")
    columns, headers, left_out, multiline, done = _typed_columns(table, skip=("id",))
    for name, what, n in cleaned + done:  # the record layer's phrases and counts
        note_cleaning(label, name, what, n)
    pacsv.write_csv(pa.table([ids, *columns], names=[f"id:ID({label})", *headers]), str(out_csv))
    return left_out, multiline


def write_relationship_csv(
    path: Path,
    out_csv: Path,
    *,
    rel_type: str,
    start_label: str,
    end_label: str,
    properties: tuple[tuple[str, Any], ...] = (),
) -> tuple[list[str], bool]:
    """The importer's CSV of one edge file (``start,end`` CSV/TSV, or JSONL ``{start, end,
    …properties}``): ``:START_ID(<start>)``, ``:END_ID(<end>)`` + typed property columns
    (lists as array columns); returns the columns left out and whether a value spans lines."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    check_rel_type(rel_type)
    try:
        a, b, _first, props = read_edge_endpoints(path, edge_format(path))
    except Unsupported as err:
        raise InputError(
            f"the importer path takes start,end edge lists or JSONL edges whose text needs "
            f"no cleaning ({err})",
            path=path,
        ) from None
    columns: list[Any] = []
    headers: list[str] = []
    left_out: list[str] = []
    multiline = False
    if props is not None:
        columns, headers, left_out, multiline, done = _typed_columns(props, skip=())
        for name, what, n in done:
            note_cleaning(rel_type, name, what, n)
    for name, value in properties:  # the same value on every edge
        kind = _neo4j_type(pa.scalar(value).type)
        if kind is None or kind.endswith("[]") or name in headers:
            raise InputError(f"constant edge property {name!r} must be a new scalar column")
        check_property(name)
        columns.append(pa.repeat(pa.scalar(value), len(a)))
        headers.append(f"{name}:{kind}")
    names = [f":START_ID({start_label})", f":END_ID({end_label})", *headers]
    pacsv.write_csv(pa.table([a, b, *columns], names=names), str(out_csv))
    return left_out, multiline


def write_import_csvs(
    papers: Path, edges: Path | None, out: Path, *, label: str
) -> tuple[Path, Path | None, list[str], bool]:
    """The importer's node and relationship CSVs of a papers file and an optional edge list
    between them (:func:`write_node_csv`, :func:`write_relationship_csv`); returns them, the
    columns left out (nested objects) and whether a value spans lines (the importer then
    needs ``--multiline-fields``, which it says slows it, so it is asked for only then)."""
    nodes_csv = out / "nodes.csv"
    left_out, multiline = write_node_csv(papers, nodes_csv, label=label)
    rels_csv = None
    if edges is not None:
        rels_csv = out / "relationships.csv"
        more, spans = write_relationship_csv(
            edges, rels_csv, rel_type="CITES", start_label=label, end_label=label
        )
        left_out += more
        multiline = multiline or spans
    return nodes_csv, rels_csv, left_out, multiline


def import_into_managed(
    server: ManagedNeo4j,
    papers: Path,
    edges: Path | None,
    *,
    label: str = "Paper",
    rel_type: str = "CITES",
    node_count: int,
    progress: ImportProgress | None = None,
) -> Neo4jImportResult:
    """Replace the managed server's empty ``neo4j`` database by ``papers`` + ``edges``
    (``scholarkg load bulk``; :func:`import_files` for several labels and types)."""
    rels = [EdgeSource(edges, rel_type, label, label)] if edges is not None else []
    return import_files(
        server, [NodeSource(papers, label)], rels, node_count=node_count, progress=progress
    )


def import_files(
    server: ManagedNeo4j,
    nodes: Sequence[NodeSource],
    relationships: Sequence[EdgeSource] = (),
    *,
    node_count: int,
    progress: ImportProgress | None = None,
) -> Neo4jImportResult:
    """Replace the managed server's empty ``neo4j`` database by these node and edge files.

    ``node_count`` is the database's current node count (the caller's store read it); a
    database that holds nodes is refused, never overwritten. Each label has its own id
    space (``id:ID(<label>)``), so an Author and a Paper may share an id string.
    """
    for src in nodes:
        for name in (src.label, *src.extra_labels):
            check_label(name)
    for rel in relationships:
        check_rel_type(rel.rel_type)
        check_label(rel.start_label)
        check_label(rel.end_label)
    if node_count:
        raise NotSupported(
            f"the Neo4j database holds {node_count:,} nodes: the offline importer builds a NEW "
            "database; 'scholarkg --backend neo4j db reset' first, or load incrementally"
        )

    def say(stage: str) -> None:
        if progress:  # a step of one: its line says it began
            progress(stage, 1, 1)
        else:
            log.info("%s", stage)

    t0 = time.perf_counter()
    target = build_launcher()
    with tempfile.TemporaryDirectory(prefix="scholarkg-import-") as tmp:
        work = Path(tmp)
        say("writing the importer's CSV files")
        options: list[str] = []
        left_out: list[str] = []
        multiline = False
        with collect_cleaning() as cleaning:
            for i, src in enumerate(nodes):
                csv_path = work / f"nodes-{i}-{src.label}.csv"
                more, spans = write_node_csv(src.path, csv_path, label=src.label)
                # every label of the file's nodes (``Paper:Stub``); the ids are ``label``'s
                labels = ":".join((src.label, *src.extra_labels))
                options.append(f"--nodes={labels}={csv_path}")
                left_out += [f"{src.label}.{name}" for name in more]
                multiline = multiline or spans
            for i, rel in enumerate(relationships):
                csv_path = work / f"relationships-{i}-{rel.rel_type}.csv"
                more, spans = write_relationship_csv(
                    rel.path, csv_path, rel_type=rel.rel_type, start_label=rel.start_label,
                    end_label=rel.end_label, properties=rel.properties,
                )  # fmt: skip
                options.append(f"--relationships={rel.rel_type}={csv_path}")
                left_out += [f"{rel.rel_type}.{name}" for name in more]
                multiline = multiline or spans
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
            *options,  # the --nodes/--relationships options take several files: first
            f"--array-delimiter={ARRAY_DELIMITER}",
            "--overwrite-destination=true",
            "--skip-bad-relationships=true",
            "--bad-tolerance=-1",
            f"--report-file={report}",
            *(["--multiline-fields=true"] if multiline else []),
            "neo4j",
        ]
        log_path = server.home / "import.log"
        with open(log_path, "w", encoding="utf-8") as fh:
            proc = subprocess.Popen(
                cmd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env={**os.environ, "NEO4J_HOME": str(server.dbms_dir), "NEO4J_CONF": ""},
                text=True,
                errors="replace",
            )
            assert proc.stdout is not None
            relay = _ImporterProgress(progress or (lambda *_: None))
            for line in proc.stdout:
                fh.write(line)
                relay.line(line)
            code = proc.wait()
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


#: ``progress(stage, done, total)``: the console's progress display (a stage per step; the
#: importer's own stages count percent, ``total`` 100)
ImportProgress = Callable[[str, int, int | None], None]

_IMPORTER_STAGE = re.compile(r"^\((\d+)/(\d+)\)\s+(.+?)(?:\s+\d{4}-\d\d-\d\d.*)?$")
_IMPORTER_PERCENT = re.compile(r"\s(\d{1,3})%\s")


class _ImporterProgress:
    """Neo4j's importer's output read as it comes: its stages (``(1/4) Node import``) and
    the percentages on its dotted lines (``.......... 45% ∆1s``) become the progress
    display's stages and counts, so a log or a pipe shows the import moving (until now
    the output went to a file and a piped ``load`` sat silent for the whole import)."""

    def __init__(self, progress: ImportProgress) -> None:
        self.progress = progress
        self.stage: str | None = None
        self.done = 0

    def line(self, line: str) -> None:
        text = line.strip()
        if stage := _IMPORTER_STAGE.match(text):
            self.finish()
            self.stage = f"importer {stage.group(1)}/{stage.group(2)}: {stage.group(3)}"
            self.done = 0
            self.progress(self.stage, 0, 100)
        elif self.stage and (pct := _IMPORTER_PERCENT.findall(f" {text} ")):
            self.done = min(100, max(self.done, int(pct[-1])))
            self.progress(self.stage, self.done, 100)
        elif text.startswith("IMPORT DONE"):
            self.finish()

    def finish(self) -> None:
        if self.stage is not None and self.done < 100:
            self.progress(self.stage, 100, 100)
        self.stage = None


def _imported(log_text: str, what: str) -> int:
    """``Imported: … N nodes / M relationships`` from the importer's summary."""
    import re

    m = re.search(rf"^\s*(\d+) {what}\s*$", log_text, re.M)
    return int(m.group(1)) if m else 0
