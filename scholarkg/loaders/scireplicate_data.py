"""SciReplicate-Bench ``Data.json``: read and validate the released task file.

One reader for the loader (which writes the graph) and for ``bench score`` (which scores
predictions straight from the file, without a store), so both see the same tasks and the
same errors. The format is the released ``xyzCS/SciReplicate-Bench:Data.json``: a JSON list
of paper objects (index = ``paper_id``), each with ``task_details``. Quirks kept as released:
the misspelt ``enviorment_name``, the two return-list spellings (``Return_list`` /
``return_list``, or neither), an ``Arguments_list`` entry without ``dependency``.

Every problem is an :class:`~scholarkg.errors.InputError` naming the file, the JSON path of
the record (``$[3].task_details[1]``) and the field.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.textio import load_json


def assemble_reference_code(signature: str, body_with_comments: str, indent: int) -> str:
    """Reference function = signature lines + annotated body indented by ``indent`` x 4 spaces.

    ``signature`` is ``ori_python_file`` lines ``signature_position`` (1-based, inclusive);
    ``indent`` is 1 for functions, 2 for methods. The released code also inserts the docstring,
    which :func:`strip_comments` removes before scoring, so it is left out here.
    """
    if indent < 0:
        raise InputError(f"indent must be >= 0, got {indent}", field="indent")
    sig = signature if signature.endswith("\n") else signature + "\n"
    return sig + textwrap.indent(body_with_comments, "    " * indent)


TASK_TYPES = ("function", "method")


@dataclass(frozen=True)
class TaskSpec:
    """One task of ``Data.json``, validated; positions are 1-based inclusive line numbers."""

    paper_index: int
    task_index: int
    type: str
    namespace: str
    indent: int
    completion_path: str
    script: str
    latex_code: str
    signature_position: tuple[int, int]
    body_position: tuple[int, int]
    ori_python_file: str
    reference_body: str
    arguments: str
    argument_names: tuple[str, ...]
    returns: str
    return_names: tuple[str, ...]
    dependency_text: str
    intra_file: tuple[str, ...]
    cross_file: tuple[str, ...]
    external_apis: tuple[str, ...]
    missing_details: tuple[str, ...]
    mismatched_details: tuple[str, ...]
    description: str | None = None
    #: paper-level fields the sandbox needs (repository folder, conda environment name)
    project_path: str = ""
    environment: str | None = None

    @property
    def uid(self) -> str:
        """The instance id ``scirep:<paper_id>:<task_id>`` (the released global key)."""
        return f"scirep:{self.paper_index}:{self.task_index}"

    @property
    def key(self) -> tuple[int, int]:
        return (self.paper_index, self.task_index)

    @property
    def function_name(self) -> str:
        return self.namespace.split(".")[-1]

    @property
    def class_name(self) -> str | None:
        parts = self.namespace.split(".")
        return parts[-2] if self.type == "method" and len(parts) >= 2 else None

    @property
    def file_path(self) -> str:
        """``completion_path`` relative to the repository root, without ``./``."""
        return self.completion_path.strip().removeprefix("./")

    @property
    def module(self) -> str:
        return module_name(self.file_path)

    @cached_property
    def signature(self) -> str:
        """The signature lines ``ori_python_file[signature_position]`` as in the file."""
        lines = self.ori_python_file.split("\n")
        return "\n".join(lines[self.signature_position[0] - 1 : self.signature_position[1]])

    @cached_property
    def docstring(self) -> str:
        """What the released prompt puts under the signature: arguments and return text."""
        return self.arguments + self.returns

    @cached_property
    def reference_code(self) -> str:
        """Signature + annotated body indented ``indent`` levels (the CodeBLEU reference)."""
        return assemble_reference_code(self.signature, self.reference_body, self.indent)


@dataclass(frozen=True)
class PaperSpec:
    """One paper object of ``Data.json`` with its validated tasks."""

    index: int
    title: str
    url: str | None
    repo_url: str | None
    project_path: str
    environment: str | None
    file_organization: str
    latex_code_path: str | None
    tasks: tuple[TaskSpec, ...]


def module_name(file_path: str) -> str:
    """``pkg/mod.py`` -> ``pkg.mod``; ``pkg/__init__.py`` -> ``pkg`` (the annotation spelling)."""
    path = file_path.strip().removeprefix("./").removesuffix(".py")
    parts = [p for p in path.split("/") if p]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class _Checker:
    """Field access that reports the file, JSON path and field of what is wrong."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def error(self, where: str, field: str, message: str) -> InputError:
        return InputError(f"{where}: {message}", path=self.path, field=field)

    def get(
        self,
        obj: Mapping[str, Any],
        where: str,
        field: str,
        kind: type | tuple[type, ...],
        *,
        optional: bool = False,
    ) -> Any:
        if field not in obj or obj[field] is None:
            if optional:
                return None
            raise self.error(where, field, "missing")
        value = obj[field]
        if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
            raise self.error(where, field, f"expected {names}, got {type(value).__name__}")
        return value

    def strings(self, obj: Mapping[str, Any], where: str, field: str) -> tuple[str, ...]:
        items = self.get(obj, where, field, list, optional=True) or []
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(where, f"{field}[{i}]", "expected a string")
        return tuple(items)

    def position(self, obj: Mapping[str, Any], where: str, field: str) -> tuple[int, int]:
        value = self.get(obj, where, field, list)
        if len(value) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            raise self.error(where, field, f"expected [start, end] line numbers, got {value!r}")
        start, end = value
        if not 1 <= start <= end:
            raise self.error(where, field, f"expected 1 <= start <= end, got {value!r}")
        return (start, end)


def parse_task(check: _Checker, raw: Any, paper_index: int, where: str) -> TaskSpec:
    """One validated task; ``where`` is its JSON path."""
    if not isinstance(raw, dict):
        raise check.error(where, "task_details", "expected an object")
    task_index = check.get(raw, where, "task_id", int)
    task_type = check.get(raw, where, "type", str)
    if task_type not in TASK_TYPES:
        raise check.error(where, "type", f"expected one of {TASK_TYPES}, got {task_type!r}")
    namespace = check.get(raw, where, "namespace", str)
    indent = check.get(raw, where, "indent", int)
    if indent < 1:
        raise check.error(where, "indent", f"expected >= 1, got {indent}")
    sig = check.position(raw, where, "signature_position")
    body = check.position(raw, where, "body_position")
    ori = check.get(raw, where, "ori_python_file", str)
    n_lines = len(ori.split("\n"))
    if body[1] > n_lines:
        raise check.error(
            where,
            "body_position",
            f"line {body[1]} is past the end of ori_python_file ({n_lines} lines)",
        )
    if not sig[0] <= sig[1] < body[0]:
        raise check.error(
            where, "body_position", f"body {list(body)} must start after the signature {list(sig)}"
        )
    args = check.get(raw, where, "Arguments", dict)
    arg_list = check.get(args, f"{where}.Arguments", "Arguments_list", list, optional=True) or []
    arg_names = tuple(str(a.get("name", "")) for a in arg_list if isinstance(a, dict))
    ret = check.get(raw, where, "Return", dict, optional=True) or {}
    ret_list = ret.get("Return_list", ret.get("return_list")) or []  # both spellings released
    ret_names = tuple(str(r.get("name", "")) for r in ret_list if isinstance(r, dict))
    dep = check.get(raw, where, "dependency", dict)
    apis = check.get(raw, where, "external_APIs", dict)
    details = check.get(raw, where, "Missing_Mismatched_details", dict, optional=True) or {}
    description = check.get(raw, where, "Description", str, optional=True)
    return TaskSpec(
        paper_index=paper_index,
        task_index=task_index,
        type=task_type,
        namespace=namespace,
        indent=indent,
        completion_path=check.get(raw, where, "completion_path", str),
        script=check.get(raw, where, "script", str, optional=True) or "",
        latex_code=check.get(raw, where, "latex_code", str),
        signature_position=sig,
        body_position=body,
        ori_python_file=ori,
        reference_body=check.get(raw, where, "ReferenceCode_With_Comments", str),
        arguments=check.get(args, f"{where}.Arguments", "string", str, optional=True) or "",
        argument_names=arg_names,
        returns=check.get(ret, f"{where}.Return", "Return_String", str, optional=True) or "",
        return_names=ret_names,
        dependency_text=check.get(dep, f"{where}.dependency", "string", str, optional=True) or "",
        intra_file=check.strings(dep, f"{where}.dependency", "intra_file"),
        cross_file=check.strings(dep, f"{where}.dependency", "cross_file"),
        external_apis=check.strings(apis, f"{where}.external_APIs", "list"),
        missing_details=check.strings(
            details, f"{where}.Missing_Mismatched_details", "Missing_details"
        ),
        mismatched_details=check.strings(
            details, f"{where}.Missing_Mismatched_details", "Mismatched_details"
        ),
        description=description,
    )


def parse_paper(check: _Checker, raw: Any, index: int) -> PaperSpec:
    where = f"$[{index}]"
    if not isinstance(raw, dict):
        raise check.error(where, "paper", f"expected a paper object, got {type(raw).__name__}")
    declared = check.get(raw, where, "paper_id", int, optional=True)
    if declared is not None and declared != index:
        raise check.error(where, "paper_id", f"is {declared} but the paper is at index {index}")
    details = check.get(raw, where, "paper_details", dict)
    tasks_raw = check.get(raw, where, "task_details", list)
    tasks = tuple(
        parse_task(check, t, index, f"{where}.task_details[{k}]") for k, t in enumerate(tasks_raw)
    )
    seen: set[int] = set()
    for k, t in enumerate(tasks):
        if t.task_index in seen:
            raise check.error(
                f"{where}.task_details[{k}]", "task_id", f"duplicate task_id {t.task_index}"
            )
        seen.add(t.task_index)
    project_path = check.get(raw, where, "project_path", str, optional=True) or ""
    environment = check.get(raw, where, "enviorment_name", str, optional=True)  # sic
    tasks = tuple(replace(t, project_path=project_path, environment=environment) for t in tasks)
    return PaperSpec(
        index=index,
        title=check.get(details, f"{where}.paper_details", "title", str),
        url=check.get(details, f"{where}.paper_details", "url", str, optional=True),
        repo_url=check.get(raw, where, "repo_original_url", str, optional=True),
        project_path=project_path,
        environment=environment,
        file_organization=check.get(raw, where, "file_organization", str, optional=True) or "",
        latex_code_path=check.get(raw, where, "latex_code_path", str, optional=True),
        tasks=tasks,
    )


def read_benchmark(path: str | Path) -> list[PaperSpec]:
    """Every paper of a ``Data.json`` file, validated (InputError names path and field)."""
    path = Path(path)
    raw = load_json(path)  # names line and column, or the XML/HTML file it is
    if not isinstance(raw, list):
        raise InputError(
            f"expected a JSON list of papers, got {type(raw).__name__}", path=path, field="$"
        )
    check = _Checker(path)
    return [parse_paper(check, paper, i) for i, paper in enumerate(raw)]
