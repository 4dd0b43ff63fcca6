"""The Sci-Reproducer agents' look-ups as graph queries (Python API behind the CLI and agent).

The released agents search a paper's LaTeX and a repository on disk with ad-hoc Python; here
each action is a named Cypher query (``queries/scireplicate/*.cypher``) or the full-text
index over sections, so the same look-ups serve the CLI (``scholarkg scireplicate ...``), the
ReAct agent (:mod:`.agent`) and anyone reading the graph:

===================  ========================================================================
SearchPaper          full-text query over the paper's sections (``paper_sections``)
SearchSection        a section by its ``\\label`` or title
SearchLiterature     a cited paper (bib key or title words) + a query: the cited paper's own
                     matching sections when it is in the graph, else its title/abstract, and
                     the citing paper's sentences that cite it
SearchCode           the definition of a class, function, method, global or ``self.x``
                     attribute by name
SearchFile           a file's content, by a path suffix
===================  ========================================================================

With a task context (``task=``) the task's own target body is masked in SearchCode and
SearchFile results, as the benchmark gives the agent the repository with that body removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

SECTION_INDEX = "paper_sections"
MASK = "# [body removed: this is the function you are asked to implement]"
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class SectionHit:
    title: str
    label: str | None
    text: str
    ordinal: int
    score: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "label": self.label,
            "ordinal": self.ordinal,
            "score": self.score,
            "text": self.text,
        }


@dataclass(frozen=True)
class LiteratureHit:
    paper: str
    title: str | None
    bib_key: str
    abstract: str | None
    sections: list[SectionHit] = field(default_factory=list)
    citing_sentences: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "paper": self.paper,
            "title": self.title,
            "bib_key": self.bib_key,
            "abstract": self.abstract,
            "sections": [s.as_dict() for s in self.sections],
            "citing_sentences": self.citing_sentences,
        }


@dataclass(frozen=True)
class CodeHit:
    namespace: str
    kind: str
    path: str
    start_line: int | None
    end_line: int | None
    source: str
    masked: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "kind": self.kind,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "masked": self.masked,
            "source": self.source,
        }


@dataclass(frozen=True)
class FileHit:
    path: str
    content: str
    masked: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "masked": self.masked, "content": self.content}


class ScireplicateLookups:
    """Look-ups on one benchmark paper; ``paper`` is its ``paper_id`` (int) or graph id.

    ``task`` (``"<paper_id>:<task_id>"`` or ``scirep:<paper_id>:<task_id>``) sets the paper
    and masks that task's target body in code results.
    """

    def __init__(
        self, store: GraphReader, paper: int | str | None = None, *, task: str | None = None
    ) -> None:
        self.store = store
        self.task: dict[str, Any] | None = None
        if task is not None:
            key = task.removeprefix("scirep:")
            rows = store.run_named("scireplicate/task", {"task": key})
            if not rows:
                raise InputError(f"no SciReplicate task {task!r} in the graph", field="task")
            self.task = rows[0]["task"]
            self.paper_id: str = rows[0]["paper"]
            return
        if paper is None:
            raise InputError("give a paper (its paper_id) or a task", field="paper")
        index = int(paper) if isinstance(paper, int) or str(paper).isdigit() else -1
        rows = store.run_named("scireplicate/paper", {"index": index, "paper": str(paper)})
        if not rows:
            raise InputError(f"no SciReplicate paper {paper!r} in the graph", field="paper")
        self.paper_id = rows[0]["id"]

    # -- paper agent -------------------------------------------------------------------
    def _sections_matching(self, paper: str, query: str, k: int) -> list[SectionHit]:
        terms = _WORD.findall(query)
        if not terms:
            return []
        # the index spans every paper's sections: ask for many and keep this paper's (a
        # section's id starts with its paper's id; the paper itself is an edge, not a property)
        hits = self.store.fulltext(SECTION_INDEX, terms, k=max(200, k * 20))
        prefix = f"{paper}/section/"
        out = []
        for hit in hits:
            props = hit.properties
            if hit.id.startswith(prefix):
                out.append(
                    SectionHit(
                        props.get("title", ""),
                        props.get("label"),
                        props.get("text", ""),
                        int(props.get("ordinal", 0)),
                        hit.score,
                    )
                )
        return out[:k]

    def search_paper(self, query: str, *, k: int = 3) -> list[SectionHit]:
        """SearchPaper: the paper's sections best matching ``query`` (full-text, best first)."""
        return self._sections_matching(self.paper_id, query, k)

    def search_section(self, label: str) -> SectionHit | None:
        """SearchSection: the section with this ``\\label`` or title (exact before partial)."""
        rows = self.store.run_named(
            "scireplicate/section_by_label", {"paper": self.paper_id, "label": label.strip()}
        )
        if not rows:
            return None
        r = rows[0]
        return SectionHit(r["title"], r["label"], r["text"], int(r["ordinal"]))

    def search_literature(self, ref: str, query: str = "", *, k: int = 3) -> LiteratureHit | None:
        """SearchLiterature: a cited paper (bib key or title words) and what it says on a query."""
        rows = self.store.run_named(
            "scireplicate/cited_papers", {"paper": self.paper_id, "ref": ref.strip()}
        )
        if not rows:
            return None
        r = rows[0]
        sections = self._sections_matching(r["id"], query, k) if query else []
        citing: list[str] = []
        cite = re.compile(
            r"\\\w*cite\w*\*?(?:\[[^\]]*\])*\{[^}]*\b" + re.escape(r["bib_key"]) + r"\b"
        )
        for s in self.store.run_named("scireplicate/sections", {"paper": self.paper_id}):
            for sentence in _SENTENCE.split(s["text"] or ""):
                if cite.search(sentence):
                    citing.append(" ".join(sentence.split()))
        return LiteratureHit(r["id"], r["title"], r["bib_key"], r["abstract"], sections, citing)

    # -- code agent --------------------------------------------------------------------
    def _mask(self, path: str, text: str, first_line: int) -> tuple[str, bool]:
        """``text`` (file lines from ``first_line``) with the task's target body masked."""
        t = self.task
        if not t or path != t.get("file_path"):
            return text, False
        start, end = int(t["body_start"]), int(t["body_end"])
        lines = text.split("\n")
        last_line = first_line + len(lines) - 1
        if not (first_line <= start and end <= last_line):
            return text, False
        lo, hi = start - first_line, end - first_line + 1
        indent = " " * (4 * int(t["indent"]))
        return "\n".join([*lines[:lo], indent + MASK, *lines[hi:]]), True

    def search_code(self, name: str) -> list[CodeHit]:
        """SearchCode: definitions named ``name`` (``fn``, ``Class.method``, ``pkg.mod.fn``).

        A definition that contains the task's target (the function itself, or its class)
        comes back with the target body masked.
        """
        rows = self.store.run_named(
            "scireplicate/code_by_name", {"paper": self.paper_id, "name": name.strip()}
        )
        out = []
        for r in rows:
            source, masked = self._mask(r["path"], r["source"] or "", int(r["start_line"] or 0))
            out.append(
                CodeHit(
                    r["namespace"],
                    r["kind"],
                    r["path"],
                    r["start_line"],
                    r["end_line"],
                    source,
                    masked,
                )
            )
        return out

    def search_file(self, path: str) -> FileHit | None:
        """SearchFile: the file whose path ends with ``path`` (the shortest such path)."""
        clean = path.strip().removeprefix("./")
        rows = self.store.run_named(
            "scireplicate/file_by_path",
            {"paper": self.paper_id, "path": clean, "suffix": "/" + clean},
        )
        if not rows:
            return None
        r = rows[0]
        content, masked = self._mask(r["path"], r["content"] or "", 1)
        return FileHit(r["path"], content, masked)
