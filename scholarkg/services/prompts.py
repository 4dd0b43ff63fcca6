"""Prompt templates: text files next to their task, rendered with ``string.Template``.

Why files: a prompt is part of a benchmark's protocol (LEGOBench's RPLM prompt decides what
the model sees), so it must be reviewable as text, and a run must record exactly which text
it used. Each template is therefore versioned by the sha256 of its text; tasks put
:meth:`PromptTemplate.record` into their run records, and two runs are comparable only if
their prompt hashes match.

Layout: ``scholarkg/benchmark/tasks/<task>/prompts/<name>.txt`` (UTF-8; shipped as package
data by the ``benchmark/tasks/**/prompts/*`` rule in pyproject). Load one by path with
:func:`load_prompt`, all of a folder with :func:`load_prompts`, or one from a package with
:func:`task_prompt`.

Placeholders are ``string.Template``'s ``$name`` / ``${name}``; ``$$`` is a literal ``$``.
We chose it over ``str.format`` because prompts are full of braces — JSON answer formats,
code, LaTeX, markdown — which ``str.format`` would make us double everywhere; a stray
``$`` is rarer and is caught at load time with its line number.

Text rules (so that the hash means "the same prompt" on every checkout): CRLF becomes LF,
and one final newline (the one editors add) is dropped; everything else, including
leading/trailing spaces and inner blank lines, is used exactly as written.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError

PROMPT_SUFFIX = ".txt"


def normalize_prompt_text(text: str) -> str:
    """CRLF/CR to LF and drop one final newline (see the module docstring)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text[:-1] if text.endswith("\n") else text


def prompt_sha256(text: str) -> str:
    """The version of a template: sha256 of its normalized text, as hex."""
    return hashlib.sha256(normalize_prompt_text(text).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PromptTemplate:
    """One template: its name, where it came from, its text, version and placeholders."""

    name: str
    path: str
    text: str
    sha256: str
    fields: tuple[str, ...]

    @classmethod
    def from_text(cls, text: str, *, name: str, path: str | Path = "<string>") -> PromptTemplate:
        """Parse and check a template; a bad ``$`` raises InputError with its line."""
        text = normalize_prompt_text(text)
        template = string.Template(text)
        for match in template.pattern.finditer(text):
            if match.group("invalid") is not None:
                start = match.start()
                line = text.count("\n", 0, start) + 1
                snippet = text[start : start + 12].split("\n")[0]
                raise InputError(
                    f"invalid placeholder {snippet!r} in template {name!r}; write $$ for a "
                    "literal dollar sign, $name or ${name} for a value",
                    path=path,
                    line=line,
                )
        fields = tuple(dict.fromkeys(template.get_identifiers()))
        return cls(name=name, path=str(path), text=text, sha256=prompt_sha256(text), fields=fields)

    @property
    def version(self) -> str:
        """Short form of the hash for logs and tables (the record keeps the full one)."""
        return self.sha256[:12]

    def render(self, values: Mapping[str, Any] | None = None, /, **kwargs: Any) -> str:
        """Fill every placeholder; a missing, unknown or non-text value raises InputError.

        Unknown keys are errors too: they are almost always a misspelt field, and a
        silently unused value would change the benchmark without anyone noticing.
        """
        given = {**(values or {}), **kwargs}
        missing = [f for f in self.fields if f not in given]
        if missing:
            raise InputError(
                f"template {self.name!r} needs a value for {missing[0]!r} "
                f"(placeholders: {', '.join(self.fields)})",
                path=self.path,
                field=missing[0],
            )
        extra = sorted(set(given) - set(self.fields))
        if extra:
            raise InputError(
                f"template {self.name!r} has no placeholder {extra[0]!r} "
                f"(placeholders: {', '.join(self.fields) or 'none'})",
                path=self.path,
                field=extra[0],
            )
        clean: dict[str, str] = {}
        for key, value in given.items():
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise InputError(
                    f"value for {key!r} must be text or a number, got {type(value).__name__}",
                    path=self.path,
                    field=key,
                )
            clean[key] = str(value)
        return string.Template(self.text).substitute(clean)

    def record(self) -> dict[str, Any]:
        """What a run stores about the prompt it used."""
        return {
            "name": self.name,
            "path": self.path,
            "sha256": self.sha256,
            "fields": list(self.fields),
        }


def load_prompt(path: str | Path, *, name: str | None = None) -> PromptTemplate:
    """Read one template file (its name defaults to the file name without ``.txt``)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read prompt template: {err.strerror or err}", path=path) from err
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError("prompt template is not valid UTF-8", path=path, line=line) from err
    return PromptTemplate.from_text(text, name=name or _stem(path.name), path=path)


def load_prompts(directory: str | Path) -> dict[str, PromptTemplate]:
    """All ``*.txt`` templates of a folder, by name (sorted, so runs list them stably)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError("prompt folder not found", path=directory)
    return {_stem(p.name): load_prompt(p) for p in sorted(directory.glob(f"*{PROMPT_SUFFIX}"))}


def task_prompt(package: str, name: str) -> PromptTemplate:
    """Template ``<package>/prompts/<name>.txt`` from an installed package.

    Goes through ``importlib.resources`` so it works from a wheel as well as a checkout;
    the recorded path is package-relative (``package:prompts/name.txt``) so that run
    records do not depend on where the package was installed.
    """
    try:
        res = resources.files(package).joinpath("prompts", f"{name}{PROMPT_SUFFIX}")
        text = res.read_text(encoding="utf-8")
    except ModuleNotFoundError as err:
        raise InputError(f"no package {package!r} for prompt {name!r}") from err
    except (FileNotFoundError, IsADirectoryError) as err:
        raise InputError(
            f"no prompt template {name!r}", path=f"{package}:prompts/{name}{PROMPT_SUFFIX}"
        ) from err
    except UnicodeDecodeError as err:
        raise InputError(
            "prompt template is not valid UTF-8", path=f"{package}:prompts/{name}{PROMPT_SUFFIX}"
        ) from err
    return PromptTemplate.from_text(
        text, name=name, path=f"{package}:prompts/{name}{PROMPT_SUFFIX}"
    )


def _stem(filename: str) -> str:
    return filename[: -len(PROMPT_SUFFIX)] if filename.endswith(PROMPT_SUFFIX) else filename
