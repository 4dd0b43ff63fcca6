"""What a benchmark family is, declared once: the :class:`Family` record.

A family (LEGOBench, DORIS-MAE, ...) is one published benchmark: its tasks, the ``load``
commands that read its released files, the part of the graph model it owns, its demo steps,
its synthetic corpus, the datasets ``scholarkg fetch`` knows for it, its saved queries and how
it reaches papers in the cross-benchmark view. Each family's package exports one ``FAMILY``
(``benchmark/tasks/<family>/__init__.py``); the catalog (``scholarkg.families``) lists them,
and the task registry, the ``load`` sub-commands, the DDL whitelists, the demo, the fetch
registry and the cross-benchmark query are derived from that list.

Everything that lives above the schema is named by a ``"module:attribute"`` string, imported
only when used: the declaration imports nothing heavy, so the catalog can be read from any
layer (it hands the DDL the families' schema parts) and ``bench list`` stays instant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from scholarkg.schema.spec import SchemaPart

#: one hop from a paper: ("out" | "in", relationship type, label of the node reached)
Hop = tuple[str, str, str]


@dataclass(frozen=True)
class PaperReach:
    """How the family reaches a :Paper, for the cross-benchmark view: the nodes at the end of
    ``hops`` from the paper are counted in a column called ``column``."""

    column: str
    hops: tuple[Hop, ...]


@dataclass(frozen=True)
class Family:
    """One benchmark family, as the rest of scholarkg sees it (see the module docstring)."""

    #: short name: the key in the catalog and the ``benchmark`` of its datasets
    name: str
    #: as the paper spells it, for tables and the docs
    title: str
    #: the paper (authors, arXiv id) and the upstream repository, for ``bench list``
    reference: str
    #: task name -> ``"module:Class"`` of its :class:`~scholarkg.benchmark.task.BenchmarkTask`
    tasks: Mapping[str, str]
    #: ``load`` sub-command -> ``"module:function"`` (a typer command); every one runs its
    #: files through ``loaders.steps.run_steps`` (checkpoints, ``--resume``, the summary)
    load_commands: Mapping[str, str]
    #: the labels, relationship types and indexes it adds to the core graph model
    schema: SchemaPart = field(default_factory=SchemaPart)
    #: demo steps in order, each ``"module:function"`` taking a ``scholarkg.demo.DemoContext``
    demo_steps: tuple[str, ...] = ()
    #: the generator of its synthetic corpus in the real file formats, ``"module:function"``
    synthetic: str | None = None
    #: a TOML file in the family's package listing its fetchable datasets (the keys are in
    #: ``scholarkg.services.fetch``), or None
    datasets: str | None = None
    #: folders under ``scholarkg/queries/`` holding its named Cypher queries
    queries: tuple[str, ...] = ()
    #: its column in the cross-benchmark view, or None if it does not reach papers
    reaches_papers: PaperReach | None = None
    #: the package that declared it (set by the catalog; the datasets file is looked up there)
    package: str = ""
