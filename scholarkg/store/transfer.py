"""Move a graph between backends as JSON Lines (docs/backends.md).

The embedded store is where corpora are built; Neo4j is where they are explored and
scaled. ``export_graph`` writes any ``GraphStore`` to a directory, ``import_graph`` reads it
into any other, through the same ``merge_nodes`` / ``merge_relationships`` /
``set_vectors`` calls loaders use, so the result obeys the same rules (MERGE on ``id``,
idempotent, vectors in the target dialect's type).

Directory layout::

    manifest.json        format, version, counts per label / type, source backend, created
    nodes.jsonl          {"labels": [...], "id": ..., "properties": {...}, "vectors": {...}}
    relationships.jsonl  {"type", "start", "end", "start_label", "end_label", "properties"}

Export pages through each label by ``id`` (keyset paging: ``WHERE n.id > $after ORDER BY
n.id LIMIT $limit``, an index range scan on both backends, never ``SKIP``) and writes each
page's outgoing relationships right after it, so memory stays at one page.

Limits: nodes without an ``id`` cannot be addressed by MERGE and are skipped (counted in
the manifest); parallel relationships of one type between the same two nodes collapse
into one on import, because writes MERGE, except for keyed types
(``schema.records.KEYED_RELATIONSHIPS``, e.g. DORIS-MAE's ``JUDGED``), which are MERGEd on
their key properties too and so keep one relationship per key.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scholarkg import __version__
from scholarkg.errors import InputError
from scholarkg.schema.ddl import (
    VectorIndex,
    check_label,
    check_property,
    check_rel_type,
    node_labels,
    rel_types,
)
from scholarkg.schema.records import KEYED_RELATIONSHIPS
from scholarkg.schema.text import key_too_long, key_too_long_message
from scholarkg.store.base import GraphStore
from scholarkg.store.cypher_common import (
    VECTOR_PREFIX,
    add_label_query,
    missing_id_count_query,
    outgoing_relationships_query,
    page_nodes_query,
)
from scholarkg.textio import atomic_write_text, iter_jsonl, read_json_object

log = logging.getLogger(__name__)

FORMAT = "scholarkg-graph"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
NODES = "nodes.jsonl"
RELATIONSHIPS = "relationships.jsonl"

#: ``progress(records_done)``: nodes + relationships written or read so far.
TransferProgress = Callable[[int], None]


def read_format_json(path: Path, fmt: str, max_version: int, *, missing: str) -> dict[str, Any]:
    """A JSON manifest whose ``format`` is ``fmt`` and ``format_version`` at most ``max_version``.

    Shared by ``export`` manifests and ``db backup`` manifests; InputError names the field.
    """
    data = read_json_object(path, missing=missing)
    if data.get("format") != fmt:
        raise InputError(f"expected {fmt!r}", path=path, field="format")
    version = data.get("format_version")
    if not isinstance(version, int) or version > max_version:
        raise InputError(
            f"unsupported version {version!r} (this scholarkg reads <= {max_version})",
            path=path,
            field="format_version",
        )
    return data


@dataclass(frozen=True)
class Manifest:
    """What an export holds; ``import_graph`` checks the files against it."""

    source_backend: str
    source_graph: str
    nodes: dict[str, int]
    relationships: dict[str, int]
    #: ``{label: {property: dimensions}}`` of vector properties (re-imported as vectors)
    vectors: dict[str, dict[str, int]] = field(default_factory=dict)
    #: nodes skipped because they had no ``id``, per label
    skipped_nodes: dict[str, int] = field(default_factory=dict)
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    scholarkg_version: str = __version__
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

    @property
    def total_relationships(self) -> int:
        return sum(self.relationships.values())

    def write(self, directory: Path) -> None:
        text = json.dumps(asdict(self), indent=2, sort_keys=True, ensure_ascii=False)
        atomic_write_text(directory / MANIFEST, text + "\n")

    @classmethod
    def read(cls, directory: Path) -> Manifest:
        """Load and validate ``manifest.json`` (InputError names the file and field)."""
        path = directory / MANIFEST
        data = read_format_json(
            path, FORMAT, FORMAT_VERSION, missing="missing; is this a 'scholarkg export' directory?"
        )
        for key, check in (("nodes", check_label), ("relationships", check_rel_type)):
            counts = data.get(key)
            if not isinstance(counts, dict) or not all(
                isinstance(v, int) and v >= 0 for v in counts.values()
            ):
                raise InputError("expected {name: count}", path=path, field=key)
            for name in counts:
                _checked(check, name, path, None, key)
        vectors = data.get("vectors", {})
        if not isinstance(vectors, dict) or not all(
            isinstance(props, dict) and all(isinstance(d, int) and d > 0 for d in props.values())
            for props in vectors.values()
        ):
            raise InputError("expected {label: {property: dimensions}}", path=path, field="vectors")
        for label, props in vectors.items():
            _checked(check_label, label, path, None, "vectors")
            for prop in props:
                _checked(check_property, prop, path, None, "vectors")
        known = {f.name for f in cls.__dataclass_fields__.values()}
        return cls(**{k: v for k, v in data.items() if k in known})


def _checked(
    check: Callable[[str], str], value: Any, path: Path, line: int | None, fld: str
) -> str:
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {value!r}", path=path, line=line, field=fld)
    try:
        return check(value)
    except InputError as err:
        raise InputError(err.message, path=path, line=line, field=fld) from err


# -- queries: shared openCypher, kept with the rest of it in ``cypher_common`` ----------


def transfer_statements() -> list[Any]:
    """The queries above with example parameters, for the Neo4j conformance lint."""
    from scholarkg.store.cypher_common import Statement

    return [
        Statement("page_nodes", page_nodes_query("Paper"), {"after": "", "limit": 1000}),
        Statement("outgoing_relationships", outgoing_relationships_query("Paper"), {"ids": ["a"]}),
        Statement("missing_id_count", missing_id_count_query("Paper")),
        Statement("add_label", add_label_query("Paper", "Chunk"), {"ids": ["a"]}),
    ]


# -- export ------------------------------------------------------------------------------


def primary_label(labels: Sequence[str], known: frozenset[str] | None = None) -> str | None:
    """The label a node is exported and merged under: the first known one, alphabetically.

    A node with several labels is met once per label while paging; only its primary
    label's pass writes it, so it appears once in ``nodes.jsonl``.
    """
    whitelist = node_labels() if known is None else known
    mine = sorted(lb for lb in labels if lb in whitelist)
    return mine[0] if mine else None


def _is_vector(name: str, value: Any, declared: set[str]) -> bool:
    if name not in declared and not name.startswith(VECTOR_PREFIX):
        return False
    return (
        isinstance(value, list)
        and len(value) > 0
        and all(isinstance(x, float | int) and not isinstance(x, bool) for x in value)
    )


def export_graph(
    store: GraphStore,
    out_dir: str | Path,
    *,
    page_size: int = 5_000,
    vector_properties: Mapping[str, Sequence[str]] | None = None,
    progress: TransferProgress | None = None,
) -> Manifest:
    """Write every node and relationship of ``store`` to ``out_dir`` (created if needed).

    ``vector_properties`` names vector properties per label beyond the ``emb_*`` naming
    convention; they are written under ``vectors`` and re-imported with ``set_vectors``.
    Only labels and relationship types of the whitelist in ``schema/ddl.py`` are exported
    (anything else was not written by scholarkg); they are logged.
    """
    if page_size < 1:
        raise InputError("page size must be >= 1", field="page_size")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    counts = store.counts()
    node_counts: dict[str, int] = {}
    rel_counts: dict[str, int] = {}
    vectors: dict[str, dict[str, int]] = {}
    skipped: dict[str, int] = {}
    done = 0
    declared = {lb: set(props) for lb, props in (vector_properties or {}).items()}
    known_labels, known_rels = node_labels(), rel_types()  # read once, not per node
    nodes_tmp, rels_tmp = out / (NODES + ".part"), out / (RELATIONSHIPS + ".part")
    with (
        nodes_tmp.open("w", encoding="utf-8") as nodes_f,
        rels_tmp.open("w", encoding="utf-8") as rels_f,
    ):
        for label in sorted(counts.nodes):
            if label not in known_labels:
                log.warning("not exporting nodes with unknown label %r", label)
                continue
            missing = store.run(missing_id_count_query(label))[0]["n"]
            if missing:
                skipped[label] = int(missing)
                log.warning("%d %s node(s) have no id and are not exported", missing, label)
            after = ""
            while True:
                page = store.run(
                    page_nodes_query(label, vector_nodes=store.backend != "neo4j"),
                    {"after": after, "limit": page_size},
                )
                if not page:
                    break
                after = str(page[-1]["id"])
                mine: list[str] = []
                for row in page:
                    labels = [str(x) for x in row["labels"]]
                    if primary_label(labels, known_labels) != label:
                        continue
                    props = dict(row["props"] or {})
                    for vprops in row.get("vector_props") or ():  # embedded: vector nodes
                        props.update(vprops)
                    props.pop("id", None)
                    vecs = {
                        k: [float(x) for x in v]
                        for k, v in props.items()
                        if _is_vector(k, v, declared.get(label, set()))
                    }
                    for k, v in vecs.items():
                        del props[k]
                        vectors.setdefault(label, {})[k] = len(v)
                    record: dict[str, Any] = {
                        "labels": sorted(lb for lb in labels if lb in known_labels),
                        "id": str(row["id"]),
                        "properties": props,
                    }
                    if vecs:
                        record["vectors"] = vecs
                    nodes_f.write(json.dumps(record, ensure_ascii=False) + "\n")
                    node_counts[label] = node_counts.get(label, 0) + 1
                    mine.append(str(row["id"]))
                done += len(mine)
                if mine:
                    rels = store.run(outgoing_relationships_query(label), {"ids": mine})
                    for rel in rels:
                        rtype = str(rel["type"])
                        end_label = primary_label(rel["end_labels"], known_labels)
                        if rtype not in known_rels or end_label is None or rel["end"] is None:
                            log.warning("not exporting a %s relationship from %s", rtype, label)
                            continue
                        rel_record = {
                            "type": rtype,
                            "start": str(rel["start"]),
                            "end": str(rel["end"]),
                            "start_label": label,
                            "end_label": end_label,
                            "properties": dict(rel["props"] or {}),
                        }
                        rels_f.write(json.dumps(rel_record, ensure_ascii=False) + "\n")
                        rel_counts[rtype] = rel_counts.get(rtype, 0) + 1
                    done += len(rels)
                if progress:
                    progress(done)
                if len(page) < page_size:
                    break
    nodes_tmp.replace(out / NODES)
    rels_tmp.replace(out / RELATIONSHIPS)
    manifest = Manifest(
        source_backend=store.backend,
        source_graph=store.graph,
        nodes=node_counts,
        relationships=rel_counts,
        vectors=vectors,
        skipped_nodes=skipped,
    )
    manifest.write(out)  # last: a directory with a manifest is a complete export
    log.info(
        "exported %d nodes and %d relationships to %s",
        manifest.total_nodes,
        manifest.total_relationships,
        out,
    )
    return manifest


# -- import ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportReport:
    nodes: int
    relationships: int
    vectors: int
    #: relationships whose endpoints were missing in the target (not written)
    skipped_relationships: int


def _props(obj: dict[str, Any], key: str, path: Path, line: int) -> dict[str, Any]:
    props = obj.get(key, {})
    if not isinstance(props, dict):
        raise InputError("expected an object", path=path, line=line, field=key)
    for name in props:
        _checked(check_property, name, path, line, f"{key}.{name}")
    return props


def _node_record(
    obj: dict[str, Any], path: Path, line: int
) -> tuple[list[str], str, dict[str, Any], dict[str, Any]]:
    labels = obj.get("labels")
    if not isinstance(labels, list) or not labels:
        raise InputError(
            "expected a non-empty list of labels", path=path, line=line, field="labels"
        )
    labels = [_checked(check_label, lb, path, line, "labels") for lb in labels]
    node_id = obj.get("id")
    if not isinstance(node_id, str) or not node_id.strip():
        raise InputError("expected a non-empty string", path=path, line=line, field="id")
    node_id = node_id.strip()  # as merge_nodes stores it: its labels and vectors go there too
    if key_too_long(node_id):  # refused here, before the import writes anything
        raise InputError(key_too_long_message(node_id), path=path, line=line, field="id")
    props = _props(obj, "properties", path, line)
    vecs = _props(obj, "vectors", path, line)
    for name, vec in vecs.items():
        if (
            not isinstance(vec, list)
            or not vec
            or not all(
                isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
                for x in vec
            )
        ):
            raise InputError(
                "expected a non-empty list of finite numbers",
                path=path,
                line=line,
                field=f"vectors.{name}",
            )
    return labels, node_id, props, vecs


def _rel_record(
    obj: dict[str, Any], path: Path, line: int
) -> tuple[tuple[str, str, str], dict[str, Any]]:
    rtype = _checked(check_rel_type, obj.get("type"), path, line, "type")
    start_label = _checked(check_label, obj.get("start_label"), path, line, "start_label")
    end_label = _checked(check_label, obj.get("end_label"), path, line, "end_label")
    for key in ("start", "end"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise InputError("expected a non-empty string", path=path, line=line, field=key)
    props = _props(obj, "properties", path, line)
    for name in KEYED_RELATIONSHIPS.get(rtype, ()):
        if props.get(name) is None or props.get(name) == "":
            raise InputError(
                f"{rtype} relationship without its merge key", path=path, line=line,
                field=f"properties.{name}",
            )  # fmt: skip
    return (rtype, start_label, end_label), {
        "start": obj["start"],
        "end": obj["end"],
        "props": props,
    }


def import_graph(
    store: GraphStore,
    in_dir: str | Path,
    *,
    batch_size: int = 5_000,
    create_vector_indexes: bool = True,
    progress: TransferProgress | None = None,
) -> ImportReport:
    """Merge an export into ``store`` (idempotent: importing twice changes nothing).

    Nodes first (grouped per label into batches), then vectors with ``set_vectors`` so they
    get the target's vector type, then relationships. With ``create_vector_indexes`` a
    cosine index named ``<label>_<property>`` (the embedding service's convention) is
    created for each vector property. Counts are checked against the manifest.
    """
    if batch_size < 1:
        raise InputError("batch size must be >= 1", field="batch_size")
    directory = Path(in_dir)
    manifest = Manifest.read(directory)
    nodes_path, rels_path = directory / NODES, directory / RELATIONSHIPS
    # Validate both files completely before writing anything: a bad line or a truncated
    # copy must not leave a half-imported graph behind.
    seen_nodes: dict[str, int] = {}
    for line, obj in iter_jsonl(nodes_path):
        label = sorted(_node_record(obj, nodes_path, line)[0])[0]
        seen_nodes[label] = seen_nodes.get(label, 0) + 1
    _expect(manifest.nodes, seen_nodes, nodes_path, "nodes")
    seen_rels: dict[str, int] = {}
    for line, obj in iter_jsonl(rels_path):
        rtype = _rel_record(obj, rels_path, line)[0][0]
        seen_rels[rtype] = seen_rels.get(rtype, 0) + 1
    _expect(manifest.relationships, seen_rels, rels_path, "relationships")
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(done)

    # nodes, buffered per primary label
    buffers: dict[str, list[dict[str, Any]]] = {}
    extra_labels: dict[tuple[str, str], list[str]] = {}
    vector_rows: dict[tuple[str, str], list[tuple[str, list[float]]]] = {}
    vector_extra: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    n_vectors = 0

    def flush_nodes(label: str) -> None:
        rows = buffers.pop(label, [])
        if rows:
            store.merge_nodes(label, rows, batch_size=batch_size)
            tick(len(rows))

    for line, obj in iter_jsonl(nodes_path):
        labels, node_id, props, vecs = _node_record(obj, nodes_path, line)
        label = sorted(labels)[0]
        for prop in vecs:  # a vector's hash and model (``embed nodes``) go with it: extra
            about = {k: props.pop(k) for k in (f"{prop}_hash", f"{prop}_model") if k in props}
            if about:
                vector_extra.setdefault((label, prop), {})[node_id] = about
        buffers.setdefault(label, []).append({"id": node_id, **props})
        for other in labels:
            if other != label:
                extra_labels.setdefault((label, other), []).append(node_id)
        for prop, vec in vecs.items():
            vector_rows.setdefault((label, prop), []).append((node_id, [float(x) for x in vec]))
        if len(buffers[label]) >= batch_size:
            flush_nodes(label)
    for label in list(buffers):
        flush_nodes(label)

    for (label, other), ids in extra_labels.items():
        for start in range(0, len(ids), batch_size):
            store.run(add_label_query(label, other), {"ids": ids[start : start + batch_size]})

    for (label, prop), rows in vector_rows.items():
        dims = {len(v) for _, v in rows}
        if len(dims) != 1:
            raise InputError(
                f"{label}.{prop} vectors have different lengths {sorted(dims)}",
                path=nodes_path,
                field=f"vectors.{prop}",
            )
        if create_vector_indexes:
            store.ensure_vector_index(
                VectorIndex(f"{label.lower()}_{prop}", label, prop, dims.pop())
            )
        n_vectors += store.set_vectors(label, prop, rows, extra=vector_extra.get((label, prop)))

    # relationships, buffered per (type, start label, end label)
    rel_buffers: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    written = 0

    def flush_rels(key: tuple[str, str, str]) -> None:
        nonlocal written
        rows = rel_buffers.pop(key, [])
        if rows:
            # keyed types MERGE on their key too (values from the properties)
            merge_key = KEYED_RELATIONSHIPS.get(key[0], ())
            written += store.merge_relationships(*key, rows, batch_size=batch_size, key=merge_key)
            tick(len(rows))

    for line, obj in iter_jsonl(rels_path):
        key, row = _rel_record(obj, rels_path, line)
        rel_buffers.setdefault(key, []).append(row)
        if len(rel_buffers[key]) >= batch_size:
            flush_rels(key)
    for key in list(rel_buffers):
        flush_rels(key)

    total_rels = sum(seen_rels.values())
    if written < total_rels:
        log.warning("%d relationship(s) skipped: endpoint not in the target", total_rels - written)
    return ImportReport(
        nodes=sum(seen_nodes.values()),
        relationships=written,
        vectors=n_vectors,
        skipped_relationships=total_rels - written,
    )


def _expect(expected: Mapping[str, int], seen: Mapping[str, int], path: Path, what: str) -> None:
    """The file must hold exactly what the manifest promises (truncated copies are caught)."""
    if dict(expected) != dict(seen):
        diff = {
            k: (expected.get(k, 0), seen.get(k, 0))
            for k in set(expected) | set(seen)
            if expected.get(k, 0) != seen.get(k, 0)
        }
        detail = ", ".join(f"{k}: manifest {a}, file {b}" for k, (a, b) in sorted(diff.items()))
        raise InputError(f"{what} do not match manifest.json ({detail})", path=path)
