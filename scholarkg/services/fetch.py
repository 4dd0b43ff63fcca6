"""Dataset fetching: a registry of the benchmarks' public files and safe, resumable downloads.

Benchmark data is large (DORIS-MAE is several hundred MB), hosted on flaky academic servers
and mostly under licences that forbid vendoring, so users download it themselves and
scholarkg makes that one command that is safe to repeat:

* the registry (each benchmark family's ``datasets.toml``, or ``$SCHOLARKG_FETCH_REGISTRY``)
  lists URLs, sizes, licences and sha256 sums; licences are shown before anything is downloaded;
* downloads go to ``<name>.part`` and resume with an HTTP ``Range`` request; a server that
  ignores ``Range`` (answers 200) makes us restart from byte 0;
* a finished download is verified against its sha256, then atomically renamed into place;
  when the registry does not know the sum yet it is recorded in
  ``<dest>/.scholarkg-sums.json`` on first download (and the caller is told), so later
  re-downloads and copies are verified against it;
* archives are unpacked into a temporary directory and renamed into place; members that
  would land outside it (absolute paths, ``..``, links) abort the extraction;
* datasets that cannot be downloaded automatically (view-only links, unverified releases)
  raise ``ManualDownloadRequired`` with instructions instead of a vague failure.

We use httpx directly rather than a download manager (pooch, huggingface_hub): pooch does not
resume partial downloads and neither records unknown sums per destination; httpx is already a
dependency.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tarfile
import tempfile
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from scholarkg.errors import FetchError, InputError
from scholarkg.textio import atomic_write_text, read_json_object, sha256_file

log = logging.getLogger(__name__)

__all__ = [
    "REGISTRY_ENV",
    "SUMS_FILE",
    "DatasetSpec",
    "FetchResult",
    "FetchedFile",
    "FileSpec",
    "ManualDownloadRequired",
    "extract_archive",
    "fetch_dataset",
    "get_dataset",
    "load_registry",
    "sha256_file",
]

#: Environment variable naming an alternative registry file (mirrors, tests).
REGISTRY_ENV = "SCHOLARKG_FETCH_REGISTRY"
#: Per-destination file where sums unknown to the registry are recorded on first download.
SUMS_FILE = ".scholarkg-sums.json"
#: Marker written into an extracted directory: the sha256 of the archive it came from.
EXTRACTED_MARKER = ".scholarkg-extracted"

#: ``progress(filename, bytes_done, bytes_total_or_None)`` after each received chunk.
ProgressFn = Callable[[str, int, int | None], None]

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+|\*)$")
_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")


class ManualDownloadRequired(FetchError):
    """The dataset must be obtained by hand (view-only link, unverified release, ...)."""


class FileSpec(BaseModel):
    """One downloadable file of a dataset."""

    model_config = ConfigDict(extra="forbid")

    url: str
    filename: str
    #: advisory: used for progress totals and a warning when the download differs
    size: int | None = None
    #: lower-case hex sha256, or "" while unknown (then recorded on first download)
    sha256: str = ""
    extract: bool = False

    @field_validator("filename")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        if not value or "/" in value or "\\" in value or value in (".", "..") or value[0] == ".":
            raise ValueError(f"must be a plain file name, got {value!r}")
        return value

    @field_validator("sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        value = value.strip().lower()
        if value and not _HEX64.match(value):
            raise ValueError("must be 64 hex digits or empty")
        return value

    @field_validator("url")
    @classmethod
    def _http(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError(f"must be an http(s) URL, got {value!r}")
        return value


class DatasetSpec(BaseModel):
    """A registry entry: what it is, under which licence, and how to get it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    title: str
    benchmark: str
    kind: Literal["download", "manual"]
    licence: str
    licence_url: str | None = None
    homepage: str | None = None
    instructions: str | None = None
    notes: str | None = None
    #: other names ``get_dataset`` accepts (``legobench`` for ``legobench-repo``)
    aliases: list[str] = []
    files: list[FileSpec] = []

    @model_validator(mode="after")
    def _consistent(self) -> DatasetSpec:
        if self.kind == "download" and not self.files:
            raise ValueError("a 'download' dataset needs at least one [[files]] entry")
        if self.kind == "manual" and not self.instructions:
            raise ValueError("a 'manual' dataset needs 'instructions'")
        names = [f.filename for f in self.files]
        if len(set(names)) != len(names):
            raise ValueError("file names must be unique within a dataset")
        return self

    @property
    def total_size(self) -> int | None:
        sizes = [f.size for f in self.files]
        return sum(s for s in sizes if s) if sizes and all(sizes) else None


@dataclass(frozen=True)
class FetchedFile:
    path: Path
    sha256: str
    size: int
    #: True when the registry had no sum and this download's sum was recorded locally
    recorded_sum: bool = False
    #: True when an existing, verified file was kept instead of downloading
    reused: bool = False
    extracted_to: Path | None = None


@dataclass(frozen=True)
class FetchResult:
    dataset: DatasetSpec
    dest: Path
    files: list[FetchedFile] = field(default_factory=list)

    @property
    def sums_file(self) -> Path:
        return self.dest / SUMS_FILE


# --------------------------------------------------------------------------- registry


def _registry_path() -> Path | None:
    env = os.environ.get(REGISTRY_ENV)
    return Path(env).expanduser() if env else None


def load_registry(path: str | Path | None = None) -> dict[str, DatasetSpec]:
    """Datasets by name from ``path``, ``$SCHOLARKG_FETCH_REGISTRY`` or, by default, every
    benchmark family's own ``datasets`` file (``Family.datasets``, in its package).

    One table per dataset under ``[datasets.<name>]``. Keys: ``title``, ``benchmark``,
    ``licence`` (shown before any download), ``licence_url``, ``homepage``, ``notes``;
    ``aliases`` (other names ``fetch`` accepts); ``kind`` = ``"download"`` (the files below are
    fetched) or ``"manual"`` (``instructions`` say how to get them);
    ``[[datasets.<name>.files]]`` with ``url``, ``filename``, ``size`` (advisory), ``sha256``
    (hex; ``""`` = recorded on first download, verified from then on) and ``extract``.
    """
    src = Path(path) if path is not None else _registry_path()
    if src is not None:
        try:
            text = src.read_text(encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot read dataset registry: {err}", path=src) from err
        return _check_aliases(_parse_registry(text, str(src)), str(src))
    from scholarkg.families import families

    out: dict[str, DatasetSpec] = {}
    for fam in families():
        if fam.datasets is None:
            continue
        where = f"{fam.package.replace('.', '/')}/{fam.datasets}"
        try:
            text = resources.files(fam.package).joinpath(fam.datasets).read_text("utf-8")
        except OSError as err:
            raise InputError(f"cannot read dataset registry: {err}", path=where) from err
        for name, spec in _parse_registry(text, where, benchmark=fam.name).items():
            if name in out:
                raise InputError(
                    f"dataset {name!r} is declared by two families", path=where,
                    field=f"datasets.{name}",
                )  # fmt: skip
            out[name] = spec
    return _check_aliases(out, "the families' dataset files")


def _parse_registry(
    text: str, where: str, *, benchmark: str | None = None
) -> dict[str, DatasetSpec]:
    """The ``[datasets.*]`` tables of one TOML text; ``benchmark`` fills (and must match) each
    entry's ``benchmark`` key when the file belongs to a family."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"invalid TOML: {err}", path=where) from err
    out: dict[str, DatasetSpec] = {}
    for name, entry in (data.get("datasets") or {}).items():
        if not isinstance(entry, dict):
            raise InputError("expected a table", path=where, field=f"datasets.{name}")
        if benchmark is not None and entry.setdefault("benchmark", benchmark) != benchmark:
            raise InputError(
                f"the {benchmark!r} family's file declares a dataset of "
                f"{entry['benchmark']!r}", path=where, field=f"datasets.{name}.benchmark",
            )  # fmt: skip
        try:
            out[name] = DatasetSpec.model_validate({"name": name, **entry})
        except ValidationError as err:
            first = err.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            fld = f"datasets.{name}" + (f".{loc}" if loc else "")
            raise InputError(first["msg"], path=where, field=fld) from err
    return out


def _check_aliases(out: dict[str, DatasetSpec], where: str) -> dict[str, DatasetSpec]:
    taken: dict[str, str] = {}
    for spec in out.values():
        for alias in spec.aliases:
            if alias in out or alias in taken:
                other = alias if alias in out else taken[alias]
                raise InputError(
                    f"alias {alias!r} is already the name or an alias of {other!r}",
                    path=where, field=f"datasets.{spec.name}.aliases",
                )  # fmt: skip
            taken[alias] = spec.name
    return out


def get_dataset(name: str, registry: dict[str, DatasetSpec] | None = None) -> DatasetSpec:
    """The entry called ``name`` or carrying it as an alias (``legobench`` → ``legobench-repo``)."""
    reg = registry if registry is not None else load_registry()
    if name in reg:
        return reg[name]
    for spec in reg.values():
        if name in spec.aliases:
            return spec
    known = sorted({*reg, *(a for s in reg.values() for a in s.aliases)})
    raise InputError(f"unknown dataset {name!r}; known: {', '.join(known)}")


# --------------------------------------------------------------------------- sums


class _Sums:
    """``<dest>/.scholarkg-sums.json``: {filename: {sha256, url, size, recorded}}."""

    def __init__(self, dest: Path) -> None:
        self.path = dest / SUMS_FILE
        self.data: dict[str, dict[str, Any]] = {}
        if self.path.is_file():
            self.data = read_json_object(self.path)

    def known(self, filename: str) -> str | None:
        entry = self.data.get(filename)
        value = entry.get("sha256") if isinstance(entry, dict) else None
        return value if isinstance(value, str) and _HEX64.match(value) else None

    def record(self, spec: FileSpec, sha: str, size: int) -> None:
        self.data[spec.filename] = {
            "sha256": sha,
            "url": spec.url,
            "size": size,
            "recorded": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        atomic_write_text(self.path, json.dumps(self.data, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- download


def _offline_hint(url: str, dest: Path, err: Exception) -> FetchError:
    host = httpx.URL(url).host
    return FetchError(
        f"cannot reach {host} ({type(err).__name__}: {err}). Are you offline? "
        f"You can download {url} by hand into {dest} and run the command again: "
        "the file will be verified and used."
    )


def _download(
    client: httpx.Client,
    spec: FileSpec,
    dest: Path,
    progress: ProgressFn | None,
) -> Path:
    """Download ``spec`` to ``<dest>/<filename>.part``, resuming a previous partial file.

    Returns the complete ``.part`` path. Truncated or interrupted transfers raise
    ``FetchError`` and keep the ``.part`` so the next call resumes it.
    """
    part = dest / f"{spec.filename}.part"
    for _attempt in range(3):
        offset = part.stat().st_size if part.exists() else 0
        # identity encoding: byte offsets must refer to the file, not a gzip stream
        headers = {"Accept-Encoding": "identity"}
        if offset:
            headers["Range"] = f"bytes={offset}-"
        done = offset
        total: int | None = None
        try:
            with client.stream("GET", spec.url, headers=headers) as resp:
                if resp.status_code == 416 and offset:
                    log.info("%s: server rejected resume at %d; restarting", spec.filename, offset)
                    part.unlink()
                    continue
                if resp.status_code == 206 and offset:
                    match = _CONTENT_RANGE.match(resp.headers.get("content-range", ""))
                    if not match or int(match.group(1)) != offset:
                        log.info("%s: unexpected Content-Range; restarting", spec.filename)
                        part.unlink()
                        continue
                    total = None if match.group(3) == "*" else int(match.group(3))
                    mode = "ab"
                elif resp.status_code == 200:
                    if offset:
                        log.info("%s: server ignored Range; restarting from 0", spec.filename)
                    done, mode = 0, "wb"
                    length = resp.headers.get("content-length")
                    total = int(length) if length and length.isdigit() else None
                else:
                    raise FetchError(f"HTTP {resp.status_code} for {spec.url}")
                if total is None:
                    total = spec.size
                with part.open(mode) as fh:
                    if progress:
                        progress(spec.filename, done, total)
                    for chunk in resp.iter_raw():  # unbuffered: keep every byte received
                        fh.write(chunk)
                        done += len(chunk)
                        if progress:
                            progress(spec.filename, done, total)
        except (httpx.ConnectError, httpx.ConnectTimeout) as err:
            raise _offline_hint(spec.url, dest, err) from err
        except httpx.HTTPError as err:
            raise FetchError(
                f"download of {spec.filename} interrupted after {done} bytes "
                f"({type(err).__name__}: {err}); run the same command again to resume"
            ) from err
        size = part.stat().st_size
        if total is not None and size != total:
            raise FetchError(
                f"download of {spec.filename} truncated: {size} of {total} bytes; "
                "run the same command again to resume"
            )
        return part
    raise FetchError(f"could not resume or restart the download of {spec.url}")


# --------------------------------------------------------------------------- extraction


def _archive_stem(filename: str) -> str | None:
    lower = filename.lower()
    for suffix in _ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return filename[: -len(suffix)]
    return None


def _check_member(name: str, archive: Path) -> None:
    p = PurePosixPath(name.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or (p.parts and ":" in p.parts[0]):
        raise FetchError(f"{archive.name}: unsafe member path {name!r}; extraction aborted")


#: tarfile's extraction filters (PEP 706) came in Python 3.11.4; Debian 12's python3.11 is
#: 3.11.2, where ``extractall(filter=...)`` is a TypeError
_TAR_FILTERS = hasattr(tarfile, "data_filter")
_FILTER_ERRORS: tuple[type[Exception], ...] = (tarfile.FilterError,) if _TAR_FILTERS else ()


def _plain_members(members: list[tarfile.TarInfo], archive: Path) -> list[tarfile.TarInfo]:
    """The tar members to unpack where tarfile has no ``data`` filter: only plain files and
    folders, as for a zip (a link or a device member aborts: telling a link that stays
    inside the folder from one that leaves it is what the filter does, and is not redone
    here), their modes without the set-id, sticky and group/other write bits, as the
    filter leaves them. Names were checked before (``_check_member``)."""
    for member in members:
        if not (member.isfile() or member.isdir()):
            raise FetchError(
                f"{archive.name}: unsafe member {member.name!r} (a link or device; this "
                "Python, before 3.11.4, unpacks plain files and folders only); "
                "extraction aborted"
            )
        member.mode &= 0o755
    return members


def extract_archive(archive: Path, target: Path) -> Path:
    """Unpack a .zip / .tar(.gz) / .tgz into ``target`` safely and atomically.

    Members are unpacked into a temporary sibling directory which replaces ``target`` only
    when everything succeeded. Absolute paths, ``..`` components and (in tars) links or
    devices pointing outside the directory abort with ``FetchError`` (tar uses Python's
    ``filter="data"``, and on a Python without it takes plain files and folders only;
    zip members are checked here because zipfile has no such filter).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.extract-", dir=target.parent))
    try:
        lower = archive.name.lower()
        if lower.endswith(".zip"):
            try:
                with zipfile.ZipFile(archive) as zf:
                    members = zf.infolist()
                    for info in members:
                        _check_member(info.filename, archive)
                        if (info.external_attr >> 16) & 0o170000 == 0o120000:
                            raise FetchError(
                                f"{archive.name}: symbolic link member {info.filename!r}; "
                                "extraction aborted"
                            )
                    zf.extractall(tmp, members)
            except zipfile.BadZipFile as err:
                raise FetchError(f"{archive.name}: not a valid zip archive ({err})") from err
        elif lower.endswith((".tar.gz", ".tgz", ".tar")):
            try:
                with tarfile.open(archive, "r:*") as tf:
                    entries = tf.getmembers()
                    for entry in entries:
                        _check_member(entry.name, archive)
                    if _TAR_FILTERS:
                        tf.extractall(tmp, filter="data")
                    else:
                        tf.extractall(tmp, _plain_members(entries, archive))
            except _FILTER_ERRORS as err:
                raise FetchError(
                    f"{archive.name}: unsafe member ({err}); extraction aborted"
                ) from err
            except tarfile.TarError as err:
                raise FetchError(f"{archive.name}: not a valid tar archive ({err})") from err
        else:
            raise FetchError(f"{archive.name}: unknown archive type")
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


# --------------------------------------------------------------------------- fetch


def fetch_dataset(
    dataset: str | DatasetSpec,
    dest: str | Path,
    *,
    registry: dict[str, DatasetSpec] | None = None,
    accept_licence: Callable[[DatasetSpec], bool] | None = None,
    progress: ProgressFn | None = None,
    client: httpx.Client | None = None,
    timeout: float = 30.0,
) -> FetchResult:
    """Download, verify and unpack every file of ``dataset`` into ``dest``.

    Safe to re-run: verified files are kept, partial ones resumed. ``accept_licence`` is
    called once before any transfer; returning False aborts. Raises
    ``ManualDownloadRequired`` for datasets that must be fetched by hand, ``FetchError`` for
    network, truncation and checksum failures.
    """
    spec = dataset if isinstance(dataset, DatasetSpec) else get_dataset(dataset, registry)
    dest = Path(dest)
    if spec.kind == "manual":
        where = f" ({spec.homepage})" if spec.homepage else ""
        raise ManualDownloadRequired(
            f"{spec.name}: {spec.title}{where} must be requested/downloaded by hand. "
            f"{spec.instructions} Licence: {spec.licence}"
        )
    if accept_licence is not None and not accept_licence(spec):
        raise FetchError(f"{spec.name}: licence not accepted; nothing downloaded")
    dest.mkdir(parents=True, exist_ok=True)
    sums = _Sums(dest)
    own_client = client is None
    http = client or httpx.Client(
        follow_redirects=True,
        timeout=httpx.Timeout(timeout, connect=min(timeout, 15.0)),
        headers={"User-Agent": "scholarkg-fetch"},
    )
    fetched: list[FetchedFile] = []
    try:
        for fspec in spec.files:
            fetched.append(_fetch_one(http, fspec, dest, sums, progress))
    finally:
        if own_client:
            http.close()
    return FetchResult(spec, dest, fetched)


def _fetch_one(
    client: httpx.Client,
    spec: FileSpec,
    dest: Path,
    sums: _Sums,
    progress: ProgressFn | None,
) -> FetchedFile:
    final = dest / spec.filename
    expected = spec.sha256 or sums.known(spec.filename)
    reused = final.is_file()
    if reused:
        digest = sha256_file(final)
        if expected and digest != expected:
            raise FetchError(
                f"{final} exists but its sha256 {digest} does not match the expected "
                f"{expected}; delete it and fetch again"
            )
    else:
        part = _download(client, spec, dest, progress)
        digest = sha256_file(part)
        if expected and digest != expected:
            part.unlink(missing_ok=True)
            raise FetchError(
                f"checksum mismatch for {spec.filename}: expected sha256 {expected}, "
                f"got {digest}; the download was discarded"
            )
        os.replace(part, final)
    size = final.stat().st_size
    if spec.size is not None and size != spec.size:
        log.warning(
            "%s: %d bytes, registry says %d (upstream may have changed)",
            spec.filename,
            size,
            spec.size,
        )
    recorded = False
    if not expected:
        sums.record(spec, digest, size)
        recorded = True
        log.warning(
            "%s: sha256 not in the registry; recorded %s in %s", spec.filename, digest, sums.path
        )
    extracted: Path | None = None
    stem = _archive_stem(spec.filename)
    if spec.extract and stem:
        target = dest / stem
        marker = target / EXTRACTED_MARKER
        if not (marker.is_file() and marker.read_text(encoding="utf-8").strip() == digest):
            extract_archive(final, target)
            marker.write_text(digest + "\n", encoding="utf-8")
        extracted = target
    return FetchedFile(final, digest, size, recorded, reused, extracted)
