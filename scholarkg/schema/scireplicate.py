"""SciReplicate-Bench records: paper sections, repository code, implementations, their edges.

The graph (the SciReplicate graph model in docs/families/scireplicate.md)::

    (:Paper)-[:HAS_SECTION]->(:Section)            LaTeX sections (with --papers-dir)
    (:Paper)-[:CITES {bib_key}]->(:Paper)          the paper's bibliography (with --papers-dir)
    (:Paper)-[:HAS_TASK]->(:CodeTask)
    (:Paper)-[:HAS_CODE]->(:Repository)-[:CONTAINS]->(:CodeFile)-[:DEFINES]->(:CodeEntity)
    (:CodeTask)-[:TARGETS]->(:CodeEntity)
    (:CodeTask)-[:DEPENDS_ON {scope: intra|cross}]->(:CodeEntity)
    (:CodeTask)-[:CALLS_API]->(:ExternalAPI)
    (:Implementation)-[:IMPLEMENTS]->(:CodeTask)
    (:Implementation)-[:HAS_STEP]->(:ReasoningStep)-[:DATA_FLOW]->(:ReasoningStep)

Code entities are keyed by repository and dotted namespace (``<repo id>#pkg.mod.Class.fn``),
the spelling the released annotations use for cross-file dependencies, so an annotated
dependency and the parsed definition meet on one node without a lookup. Code text keeps its
whitespace (``str_strip_whitespace=False``): indentation and line numbers are data.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import ConfigDict

from scholarkg.schema.records import EdgeRecord, NodeRecord

_KEEP_WHITESPACE = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)

EntityKind = Literal["function", "class", "method", "global", "attribute", "unresolved"]


class CodeFile(NodeRecord):
    """A Python file of a repository; ``content`` is what SearchFile returns (masked per task)."""

    LABEL: ClassVar[str] = "CodeFile"
    model_config = _KEEP_WHITESPACE
    repository: str
    path: str
    module: str
    content: str | None = None
    parse_error: str | None = None

    ID_RULE = staticmethod(lambda d: f"{d['repository']}/file/{d['path']}")


class CodeEntity(NodeRecord):
    """A function, class, method or global of a file; ``unresolved`` = annotated, not parsed.

    Positions are 1-based inclusive line numbers in the file; ``body_start`` is the first line
    after the signature (the docstring included, as in the released ``body_position``).
    """

    LABEL: ClassVar[str] = "CodeEntity"
    model_config = _KEEP_WHITESPACE
    repository: str
    namespace: str
    name: str
    kind: EntityKind
    file: str | None = None
    qualname: str | None = None
    signature: str | None = None
    source: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    body_start: int | None = None
    body_end: int | None = None

    ID_RULE = staticmethod(lambda d: f"{d['repository']}#{d['namespace']}")


class ExternalAPI(NodeRecord):
    """A library call the reference implementation uses (``torch.nn.functional.softmax``)."""

    LABEL: ClassVar[str] = "ExternalAPI"
    name: str

    ID_RULE = staticmethod(lambda d: f"api:{d['name']}")


class Implementation(NodeRecord):
    """One implementation of a task: the reference, or a generated answer of one run."""

    LABEL: ClassVar[str] = "Implementation"
    model_config = _KEEP_WHITESPACE
    task: str
    kind: str  # "reference" or "generated"
    run_id: str | None = None
    code: str
    code_sha: str
    parse_error: str | None = None
    reasoning: str | None = None

    ID_RULE = staticmethod(lambda d: f"{d['task']}/impl/{d.get('run_id') or d['kind']}")


# --------------------------------------------------------------------------- edges


class HasTask(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_TASK"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "CodeTask"


class Contains(EdgeRecord):
    TYPE: ClassVar[str] = "CONTAINS"
    START: ClassVar[str] = "Repository"
    END: ClassVar[str] = "CodeFile"


class Defines(EdgeRecord):
    TYPE: ClassVar[str] = "DEFINES"
    START: ClassVar[str] = "CodeFile"
    END: ClassVar[str] = "CodeEntity"


class Targets(EdgeRecord):
    TYPE: ClassVar[str] = "TARGETS"
    START: ClassVar[str] = "CodeTask"
    END: ClassVar[str] = "CodeEntity"


class DependsOn(EdgeRecord):
    TYPE: ClassVar[str] = "DEPENDS_ON"
    START: ClassVar[str] = "CodeTask"
    END: ClassVar[str] = "CodeEntity"
    scope: Literal["intra", "cross"]
    annotation: str


class CallsApi(EdgeRecord):
    TYPE: ClassVar[str] = "CALLS_API"
    START: ClassVar[str] = "CodeTask"
    END: ClassVar[str] = "ExternalAPI"


class Implements(EdgeRecord):
    TYPE: ClassVar[str] = "IMPLEMENTS"
    START: ClassVar[str] = "Implementation"
    END: ClassVar[str] = "CodeTask"


class HasStep(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_STEP"
    START: ClassVar[str] = "Implementation"
    END: ClassVar[str] = "ReasoningStep"


class DataFlow(EdgeRecord):
    TYPE: ClassVar[str] = "DATA_FLOW"
    START: ClassVar[str] = "ReasoningStep"
    END: ClassVar[str] = "ReasoningStep"


class LiteratureCitation(EdgeRecord):
    """``(Paper)-[:CITES {bib_key}]->(Paper)``: a bibliography entry the paper's text cites."""

    TYPE: ClassVar[str] = "CITES"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Paper"
    bib_key: str
