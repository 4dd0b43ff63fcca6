"""What SciReplicate-Bench's agents read besides ``Data.json``: Python files and LaTeX sources.

* :func:`parse_python_file`: a file's functions, classes, methods, globals and ``self.x``
  attributes with ``ast`` (positions as 1-based inclusive lines, signature = the ``def``
  lines before the body), the repository side of SearchCode/SearchFile.
* :func:`read_latex_sources`: a paper's sections (``\\section``/``\\subsection``, labels) and
  its bibliography (``.bib`` entries that the text cites), the paper side of
  SearchPaper/SearchSection/SearchLiterature.

We deliberately do not use a LaTeX parser package (pylatexenc, TexSoup): the agents only need
section boundaries, labels and citation keys, which a few anchored regexes find robustly on
arXiv sources, and a full parser fails on the macros those sources define.
"""

from __future__ import annotations

import ast
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------- Python


@dataclass(frozen=True)
class ParsedEntity:
    """One definition in a file; ``qualname`` is ``Class.method`` style, ``kind`` its sort."""

    qualname: str
    kind: str  # function | class | method | global | attribute
    start_line: int
    end_line: int
    body_start: int | None = None
    body_end: int | None = None
    signature: str | None = None
    source: str | None = None

    @property
    def name(self) -> str:
        return self.qualname.split(".")[-1]


@dataclass(frozen=True)
class ParsedFile:
    entities: list[ParsedEntity]
    parse_error: str | None = None


def _signature(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The ``def`` line(s): from the ``def`` keyword's line to the line before the body."""
    end = max(node.lineno, node.body[0].lineno - 1)
    return "\n".join(lines[node.lineno - 1 : end])


def _function(
    lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef, qualname: str, kind: str
) -> ParsedEntity:
    end = node.end_lineno or node.lineno
    return ParsedEntity(
        qualname=qualname,
        kind=kind,
        start_line=node.lineno,
        end_line=end,
        body_start=node.body[0].lineno,
        body_end=end,
        signature=_signature(lines, node),
        source="\n".join(lines[node.lineno - 1 : end]),
    )


def _assigned_names(node: ast.stmt) -> list[str]:
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    names: list[str] = []
    for target in targets:
        elts = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
        names += [e.id for e in elts if isinstance(e, ast.Name)]
    return names


def _self_attributes(cls: ast.ClassDef) -> dict[str, int]:
    """``self.x = ...`` targets in the class's methods -> first line (released attribute rule)."""
    found: dict[str, int] = {}
    for item in cls.body:
        if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(item):
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if (
                        isinstance(t, ast.Attribute)
                        and isinstance(t.value, ast.Name)
                        and t.value.id == "self"
                    ):
                        found.setdefault(t.attr, node.lineno)
    return found


def parse_python_file(source: str) -> ParsedFile:
    """Top-level functions, classes (their methods and ``self.x`` attributes) and globals.

    A file that does not parse yields no entities and its ``parse_error`` (it is still a file
    the agent can read).
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as err:
        return ParsedFile([], f"{type(err).__name__}: {err}")
    lines = source.split("\n")
    out: list[ParsedEntity] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append(_function(lines, node, node.name, "function"))
        elif isinstance(node, ast.ClassDef):
            end = node.end_lineno or node.lineno
            out.append(
                ParsedEntity(
                    node.name,
                    "class",
                    node.lineno,
                    end,
                    node.body[0].lineno,
                    end,
                    lines[node.lineno - 1],
                    "\n".join(lines[node.lineno - 1 : end]),
                )
            )
            methods = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    methods.add(item.name)
                    out.append(_function(lines, item, f"{node.name}.{item.name}", "method"))
            for attr, line in _self_attributes(node).items():
                if attr not in methods:
                    out.append(
                        ParsedEntity(
                            f"{node.name}.{attr}",
                            "attribute",
                            line,
                            line,
                            source=lines[line - 1].strip(),
                        )
                    )
        else:
            for name in _assigned_names(node):
                end = node.end_lineno or node.lineno
                out.append(
                    ParsedEntity(
                        name,
                        "global",
                        node.lineno,
                        end,
                        source="\n".join(lines[node.lineno - 1 : end]),
                    )
                )
    # the last definition of a name wins, as Python binds it
    by_name = {e.qualname: e for e in out}
    return ParsedFile(list(by_name.values()))


#: folders never walked for code (virtual envs, caches, VCS metadata)
SKIP_DIRS = frozenset(
    {".git", "__pycache__", ".venv", "venv", "env", "node_modules", "site-packages"}
)
MAX_FILE_BYTES = 2_000_000


def python_files(root: Path) -> list[Path]:
    """The repository's ``.py`` files (relative paths, sorted), skipping envs and caches."""
    out: list[Path] = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES:
            out.append(rel)
    return sorted(out)


# --------------------------------------------------------------------------- LaTeX

_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_INPUT = re.compile(r"\\(?:input|include)\s*\{([^}]+)\}")
_SECTION = re.compile(r"\\(section|subsection|subsubsection)\*?\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_LABEL = re.compile(r"\\label\s*\{([^}]+)\}")
_CITE = re.compile(r"\\(?:no)?cite[a-zA-Z]*\*?\s*(?:\[[^\]]*\]\s*)*\{([^}]+)\}")
_ABSTRACT = re.compile(r"\\begin\{abstract\}(.*?)\\end\{abstract\}", re.DOTALL)
_BEGIN_DOC = re.compile(r"\\begin\{document\}")
_END_DOC = re.compile(r"\\end\{document\}")
_BIB_ENTRY = re.compile(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", re.IGNORECASE)
_BIB_FIELD = re.compile(r"\s*(\w+)\s*=\s*", re.IGNORECASE)
_LEVELS = {"section": 1, "subsection": 2, "subsubsection": 3}


@dataclass(frozen=True)
class LatexSection:
    ordinal: int
    title: str
    level: int
    label: str | None
    text: str


@dataclass(frozen=True)
class BibEntry:
    key: str
    fields: dict[str, str]

    @property
    def title(self) -> str | None:
        title = self.fields.get("title")
        return re.sub(r"[{}]", "", title).strip() if title else None


@dataclass
class LatexSources:
    sections: list[LatexSection] = field(default_factory=list)
    abstract: str | None = None
    bibliography: list[BibEntry] = field(default_factory=list)
    cited_keys: list[str] = field(default_factory=list)
    main_file: str | None = None


def _strip_comments(text: str) -> str:
    return _COMMENT.sub("", text)


def _expand_inputs(text: str, root: Path, depth: int = 0) -> str:
    """Inline ``\\input``/``\\include`` files (5 levels at most; a missing file is skipped)."""
    if depth > 5:
        return text

    def repl(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        for candidate in (root / name, root / f"{name}.tex"):
            if candidate.is_file():
                sub = _strip_comments(candidate.read_text(encoding="utf-8", errors="replace"))
                return _expand_inputs(sub, root, depth + 1)
        return ""

    return _INPUT.sub(repl, text)


def _braced_value(text: str, start: int) -> tuple[str, int]:
    """A bib field value at ``start``: ``{...}`` (nested), ``"..."`` or a bare word."""
    if start >= len(text):
        return "", start
    opener = text[start]
    if opener == "{":
        depth, i = 0, start
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    return text[start + 1 : i], i + 1
            i += 1
        return text[start + 1 :], len(text)
    if opener == '"':
        end = text.find('"', start + 1)
        end = len(text) if end < 0 else end
        return text[start + 1 : end], end + 1
    match = re.match(r"[^,}\s]+", text[start:])
    word = match.group(0) if match else ""
    return word, start + len(word)


def parse_bib(text: str) -> list[BibEntry]:
    """Entries of a ``.bib`` file (``@string``/``@comment``/``@preamble`` skipped)."""
    entries: list[BibEntry] = []
    for match in _BIB_ENTRY.finditer(text):
        kind, key = match.group(1).lower(), match.group(2)
        if kind in ("string", "comment", "preamble"):
            continue
        pos, fields = match.end(), {}
        while pos < len(text):
            fm = _BIB_FIELD.match(text, pos)
            if not fm:
                break
            value, pos = _braced_value(text, fm.end())
            fields[fm.group(1).lower()] = " ".join(value.split())
            rest = re.match(r"\s*,?\s*", text[pos:])
            pos += rest.end() if rest else 0
            if pos < len(text) and text[pos] == "}":
                break
        entries.append(BibEntry(key, fields))
    return entries


def read_latex_sources(root: Path) -> LatexSources:
    """Sections, abstract and cited bibliography of the LaTeX project in ``root``."""
    tex_files = sorted(root.rglob("*.tex"))
    main: Path | None = None
    for path in tex_files:
        if _BEGIN_DOC.search(path.read_text(encoding="utf-8", errors="replace")):
            main = path
            break
    out = LatexSources()
    if main is None:
        log.warning("%s: no .tex file with \\begin{document}", root)
        return out
    out.main_file = str(main.relative_to(root))
    text = _expand_inputs(
        _strip_comments(main.read_text(encoding="utf-8", errors="replace")), main.parent
    )
    if begin := _BEGIN_DOC.search(text):
        text = text[begin.end() :]
    if end := _END_DOC.search(text):
        text = text[: end.start()]
    if abstract := _ABSTRACT.search(text):
        out.abstract = " ".join(abstract.group(1).split())
    heads = list(_SECTION.finditer(text))
    for k, head in enumerate(heads):
        body = text[head.end() : heads[k + 1].start() if k + 1 < len(heads) else len(text)]
        label = _LABEL.search(body[:400])
        out.sections.append(
            LatexSection(
                ordinal=k + 1,
                title=" ".join(head.group(2).split()),
                level=_LEVELS[head.group(1)],
                label=label.group(1).strip() if label else None,
                text=body.strip(),
            )
        )
    keys: list[str] = []
    for match in _CITE.finditer(text):
        keys += [k.strip() for k in match.group(1).split(",") if k.strip()]
    out.cited_keys = list(dict.fromkeys(keys))
    cited = set(out.cited_keys)
    for bib in sorted(root.rglob("*.bib")):
        for entry in parse_bib(bib.read_text(encoding="utf-8", errors="replace")):
            if entry.key in cited:
                out.bibliography.append(entry)
    first_by_key: dict[str, BibEntry] = {}  # one entry per key, the first found, in order
    for entry in out.bibliography:
        first_by_key.setdefault(entry.key, entry)
    out.bibliography = list(first_by_key.values())
    return out
