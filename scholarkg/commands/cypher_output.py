"""What ``scholarkg cypher`` prints of a result: graph values with their structure, and what
a write changed.

The store's explorer result (``ExploreResult``) keeps nodes and relationships apart from
the cells that mention them; the command used to print each as its property dict alone, so
a relationship came out as ``{}`` and a node without its labels. Here they keep what makes
them readable, the same on both backends (labels sorted, ``id`` first, then the other
properties by name; a relationship's endpoints by their application ``id``, never an
internal id, which differs between FalkorDB and Neo4j):

* ``--format json``: a node is ``{"labels": [...], "properties": {...}}``, a relationship
  ``{"type": ..., "start": <id>, "end": <id>, "properties": {...}}``, a path
  ``{"nodes": [...], "relationships": [...]}`` (relationship ``i`` joins nodes ``i`` and
  ``i + 1``);
* a table or CSV: as cypher-shell writes them, ``(:Paper {id: "p1", title: "A"})``,
  ``(:Paper {id: "p1"})-[:CITES {weight: 1}]->(:Paper {id: "p2"})``, a path as its nodes
  and relationships in a row.

Cells without a node, relationship or path in them are left as they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from scholarkg.store.base import ExploreResult, GraphNode, GraphRel

#: a property name Cypher reads without backticks
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def endpoint_refs(result: ExploreResult) -> set[str]:
    """Refs of relationship endpoints the result holds no node for: the store is asked for
    their labels and ``id`` (``GraphExplorer.explore_node_keys``), as a reply names an
    endpoint by internal id only."""
    return {
        ref
        for rel in result.relationships.values()
        for ref in (rel.start, rel.end)
        if ref and ref not in result.nodes
    }


def graph_rows(
    result: ExploreResult, endpoints: Mapping[str, GraphNode], *, as_text: bool
) -> list[dict[str, Any]]:
    """One dict per row, column by column; graph values structured for JSON, or written as
    text (``as_text``) for a table or CSV. ``endpoints``: nodes the result lacks, by ref."""
    shape = _Shape(result, endpoints)
    convert = shape.text_cell if as_text else shape.json_value
    return [
        {col: convert(cell) for col, cell in zip(result.columns, row, strict=False)}
        for row in result.rows
    ]


def changes_line(changes: Mapping[str, int]) -> str:
    """``nodes created: 2, properties set: 4`` (the server's counts), or ``no changes``."""
    if not changes:
        return "no changes"
    return ", ".join(f"{name}: {n:,}" for name, n in changes.items())


def _properties(props: Mapping[str, Any]) -> dict[str, Any]:
    """``id`` first, the others by name: one order whatever order a server sends them in."""
    return {k: props[k] for k in sorted(props, key=lambda k: (k != "id", k))}


def _literal(value: Any) -> str:
    """A value as Cypher writes it: strings quoted, ``true``/``null``, maps ``{k: v}``."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_name(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _name(key: Any) -> str:
    text = str(key)
    return text if _PLAIN_NAME.match(text) else "`" + text.replace("`", "``") + "`"


def _map_text(props: Mapping[str, Any]) -> str:
    return f" {_literal(_properties(props))}" if props else ""


class _Shape:
    """Cells of one result turned structured (JSON) or into text (a table, CSV)."""

    def __init__(self, result: ExploreResult, endpoints: Mapping[str, GraphNode]) -> None:
        self.nodes = result.nodes
        self.rels = result.relationships
        self.endpoints = endpoints

    # -- what a cell refers to ------------------------------------------------------------
    @staticmethod
    def _ref(value: Any, kind: str) -> Any:
        if isinstance(value, dict) and set(value) == {kind}:
            return value[kind]
        return None

    def _endpoint(self, ref: str) -> GraphNode | None:
        return self.nodes.get(ref) or self.endpoints.get(ref)

    def _endpoint_id(self, ref: str) -> Any:
        node = self._endpoint(ref)
        return None if node is None else node.properties.get("id")

    def _holds_graph_values(self, value: Any) -> bool:
        if isinstance(value, dict):
            if len(value) == 1 and next(iter(value)) in ("~node", "~rel", "~path"):
                return True
            return any(self._holds_graph_values(v) for v in value.values())
        if isinstance(value, list):
            return any(self._holds_graph_values(v) for v in value)
        return False

    # -- JSON -----------------------------------------------------------------------------
    def _node_json(self, node: GraphNode) -> dict[str, Any]:
        return {"labels": sorted(node.labels), "properties": _properties(node.properties)}

    def _rel_json(self, rel: GraphRel) -> dict[str, Any]:
        return {
            "type": rel.type,
            "start": self._endpoint_id(rel.start),
            "end": self._endpoint_id(rel.end),
            "properties": _properties(rel.properties),
        }

    def json_value(self, value: Any) -> Any:
        if (ref := self._ref(value, "~node")) is not None:
            return self._node_json(self.nodes[ref])
        if (ref := self._ref(value, "~rel")) is not None:
            return self._rel_json(self.rels[ref])
        if (refs := self._ref(value, "~path")) is not None:
            return {
                "nodes": [self._node_json(self.nodes[r]) for r in refs[0::2]],
                "relationships": [self._rel_json(self.rels[r]) for r in refs[1::2]],
            }
        if isinstance(value, dict):
            return {k: self.json_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json_value(v) for v in value]
        return value

    # -- text -----------------------------------------------------------------------------
    @staticmethod
    def _node_text(node: GraphNode | None) -> str:
        if node is None:
            return "()"
        labels = "".join(f":{_name(label)}" for label in sorted(node.labels))
        return f"({labels}{_map_text(node.properties)})"

    def _rel_text(self, rel: GraphRel) -> str:
        return f"[:{_name(rel.type)}{_map_text(rel.properties)}]"

    def _key_text(self, ref: str) -> str:
        """An endpoint as its labels and ``id``: the relationship's own cell says which."""
        node = self._endpoint(ref)
        if node is None:
            return "()"
        keyed = {"id": node.properties["id"]} if "id" in node.properties else {}
        return self._node_text(GraphNode(ref=ref, labels=node.labels, properties=keyed))

    def _path_text(self, refs: list[str]) -> str:
        parts = [self._node_text(self.nodes.get(refs[0]))]
        for i in range(1, len(refs) - 1, 2):
            rel, before = self.rels[refs[i]], refs[i - 1]
            forward = rel.start == before
            arrow = f"-{self._rel_text(rel)}->" if forward else f"<-{self._rel_text(rel)}-"
            parts += [arrow, self._node_text(self.nodes.get(refs[i + 1]))]
        return "".join(parts)

    def _text(self, value: Any) -> str:
        if (ref := self._ref(value, "~node")) is not None:
            return self._node_text(self.nodes[ref])
        if (ref := self._ref(value, "~rel")) is not None:
            rel = self.rels[ref]
            return f"{self._key_text(rel.start)}-{self._rel_text(rel)}->{self._key_text(rel.end)}"
        if (refs := self._ref(value, "~path")) is not None:
            return self._path_text(refs)
        if isinstance(value, dict):
            return "{" + ", ".join(f"{_name(k)}: {self._text(v)}" for k, v in value.items()) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self._text(v) for v in value) + "]"
        return _literal(value)

    def text_cell(self, value: Any) -> Any:
        """A cell for a table or CSV: text when it holds a graph value, else as it was."""
        return self._text(value) if self._holds_graph_values(value) else value
