"""The catalog of benchmark families: the one list a new family is added to.

``FAMILY_MODULES`` names the packages whose ``FAMILY`` (a :class:`~scholarkg.family.Family`)
scholarkg runs; a family distributed as its own Python package joins through the entry-point
group ``scholarkg.families`` (``[project.entry-points."scholarkg.families"] name = "package"``)
with no edit here. Everything that lists families — the task registry, ``scholarkg load``, the
DDL whitelists, the demo, ``scholarkg fetch``, the cross-benchmark saved query — asks this
module, so a family is declared once.

The declarations are data (strings and schema parts): reading the catalog imports no task,
loader or model code.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from scholarkg.errors import ConfigError
from scholarkg.family import Family
from scholarkg.schema import ddl
from scholarkg.schema.spec import SchemaPart

#: the families shipped with scholarkg, in the order the demo runs them (LEGOBench first: the
#: other demo corpora share its leaderboard papers)
FAMILY_MODULES: tuple[str, ...] = (
    "scholarkg.benchmark.tasks.legobench",
    "scholarkg.benchmark.tasks.dorismae",
    "scholarkg.benchmark.tasks.citerec",
    "scholarkg.benchmark.tasks.retrieval",
    "scholarkg.benchmark.tasks.aaar",
    "scholarkg.benchmark.tasks.scireplicate",
)

ENTRY_POINT_GROUP = "scholarkg.families"


def family_modules() -> tuple[str, ...]:
    """The shipped families, then those installed packages declare as entry points."""
    return (*FAMILY_MODULES, *_entry_point_modules())


@lru_cache(maxsize=1)
def _entry_point_modules() -> tuple[str, ...]:
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    return tuple(ep.value for ep in found if ep.value not in FAMILY_MODULES)


def families() -> tuple[Family, ...]:
    """Every family, in catalog order (cached per list of modules)."""
    return _load(family_modules())


def family(name: str) -> Family:
    """The family called ``name``; a ``ConfigError`` lists the known ones."""
    for fam in families():
        if fam.name == name:
            return fam
    known = ", ".join(f.name for f in families())
    raise ConfigError(f"unknown benchmark family {name!r}; known: {known}")


def refresh() -> None:
    """Forget what was discovered (a test that installs a family, or a plugin installed while
    a long-lived process runs)."""
    _entry_point_modules.cache_clear()
    _load.cache_clear()


@lru_cache(maxsize=8)
def _load(modules: tuple[str, ...]) -> tuple[Family, ...]:
    out: list[Family] = []
    for module_name in modules:
        module = importlib.import_module(module_name)
        declared = getattr(module, "FAMILY", None)
        if not isinstance(declared, Family):
            raise ConfigError(
                f"{module_name} is listed as a benchmark family but defines no FAMILY "
                "(a scholarkg.family.Family)"
            )
        out.append(_with_package(declared, module_name))
    _check_unique(out)
    return tuple(out)


def _with_package(fam: Family, package: str) -> Family:
    from dataclasses import replace

    return fam if fam.package == package else replace(fam, package=package)


def _check_unique(found: list[Family]) -> None:
    """Two families may not claim one name, task, load command or label: the second would
    silently shadow the first."""
    owners: dict[tuple[str, str], str] = {}
    for fam in found:
        claims = [("family", fam.name)]
        claims += [("task", t) for t in fam.tasks]
        claims += [("load command", c) for c in fam.load_commands]
        claims += [("label", lb) for lb in fam.schema.labels]
        claims += [("relationship type", r) for r in fam.schema.rel_types]
        for claim in claims:
            if claim in owners:
                raise ConfigError(
                    f"benchmark families {owners[claim]!r} and {fam.name!r} both declare the "
                    f"{claim[0]} {claim[1]!r}"
                )
            owners[claim] = fam.name


def task_classes() -> dict[str, str]:
    """Task name -> ``"module:Class"``, across every family."""
    return {name: target for fam in families() for name, target in fam.tasks.items()}


def resolve(target: str) -> Any:
    """The object a ``"module:attribute"`` string names (a declaration's upward reference)."""
    module_name, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise ConfigError(f"cannot resolve {target!r}: {err}") from err


def _schema_parts() -> tuple[SchemaPart, ...]:
    return tuple(f.schema for f in families())


# the schema (the bottom layer) imports nothing above it: the catalog hands it the families'
# parts, read whenever the model is assembled (per list of family modules)
ddl.register_family_parts(_schema_parts, key=family_modules)
