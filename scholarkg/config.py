"""Settings from the environment (``SCHOLARKG_*``, ``NEO4J_*``) and an optional TOML file.

One place, so every command and test resolves paths and credentials the same way.
Precedence: explicit argument > environment > config file > default. The config file is
``$SCHOLARKG_CONFIG`` if set, else ``$SCHOLARKG_HOME/config.toml``. It may hold the same
keys in lower case, e.g.::

    backend = "neo4j"
    graph = "scholarkg"
    [neo4j]
    uri = "bolt://localhost:7687"
    user = "neo4j"
    password = "..."
    [llm]
    base_url = "http://127.0.0.1:8089/v1"
    model = "smollm2-135m-instruct"
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from scholarkg.errors import ConfigError

BACKENDS = ("embedded", "neo4j")
DEFAULT_GRAPH = "scholarkg"


def default_home() -> Path:
    """``$SCHOLARKG_HOME`` or the XDG data dir (``~/.local/share/scholarkg``)."""
    env = os.environ.get("SCHOLARKG_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "scholarkg"


@dataclass(frozen=True)
class Neo4jSettings:
    uri: str | None = None
    user: str = "neo4j"
    password: str | None = field(default=None, repr=False)  # never printed
    database: str | None = None


@dataclass(frozen=True)
class LLMSettings:
    """The LLM endpoint and how patiently to talk to it.

    ``timeout`` (seconds per request), ``concurrency`` (requests in flight) and ``max_tokens``
    (a cap on the tokens any request asks for) are ``None`` when not configured; the client
    then uses defaults that let the bundled local model finish on two cores
    (:data:`scholarkg.services.llm.DEFAULT_TIMEOUT` ...).
    """

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float | None = None
    concurrency: int | None = None
    max_tokens: int | None = None


def _number(kind: type, name: str, *values: Any) -> Any:
    """The first given of ``values`` (env first, then config) as ``kind`` > 0, or ``None``;
    a bad value is a ConfigError naming where it came from."""
    for where, value in zip((f"${name}", f"[llm] {name.split('_LLM_')[-1].lower()}"), values,
                            strict=False):  # fmt: skip
        if value is None or value == "":
            continue
        try:
            out = kind(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{where}: expected a positive number, got {value!r}") from None
        if out <= 0:
            raise ConfigError(f"{where}: must be > 0, got {value!r}")
        return out
    return None


@dataclass(frozen=True)
class Settings:
    """Resolved settings; immutable so a store or task never changes them behind a caller."""

    home: Path
    backend: str = "embedded"
    graph: str = DEFAULT_GRAPH
    neo4j: Neo4jSettings = field(default_factory=Neo4jSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    debug: bool = False

    @property
    def data_dir(self) -> Path:
        """Embedded server data directory (``$SCHOLARKG_DATA_DIR`` or ``<home>/falkordb``)."""
        env = os.environ.get("SCHOLARKG_DATA_DIR")
        return Path(env).expanduser() if env else self.home / "falkordb"

    @property
    def runs_dir(self) -> Path:
        return self.home / "runs"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def checkpoints_dir(self) -> Path:
        """Load checkpoints (``<home>/checkpoints``): written by every load, forgotten by
        ``db reset``/``db restore``; one definition so the two can never disagree."""
        return self.home / "checkpoints"

    def with_overrides(self, **kwargs: Any) -> Settings:
        clean = {k: v for k, v in kwargs.items() if v is not None}
        if "backend" in clean and clean["backend"] not in BACKENDS:
            raise ConfigError(f"unknown backend {clean['backend']!r}; choose one of {BACKENDS}")
        return replace(self, **clean)


def _read_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: invalid TOML: {err}") from err


def load_settings(**overrides: Any) -> Settings:
    """Resolve settings; ``overrides`` (CLI options) win over everything else."""
    home = Path(overrides.pop("home", None) or default_home())
    cfg_path = Path(os.environ.get("SCHOLARKG_CONFIG", home / "config.toml"))
    cfg = _read_file(cfg_path)
    n4 = cfg.get("neo4j", {}) or {}
    llm = cfg.get("llm", {}) or {}
    env = os.environ
    settings = Settings(
        home=home,
        backend=env.get("SCHOLARKG_BACKEND") or cfg.get("backend") or "embedded",
        graph=env.get("SCHOLARKG_GRAPH") or cfg.get("graph") or DEFAULT_GRAPH,
        neo4j=Neo4jSettings(
            uri=env.get("NEO4J_URI") or n4.get("uri"),
            user=env.get("NEO4J_USER") or n4.get("user") or "neo4j",
            password=env.get("NEO4J_PASSWORD") or n4.get("password"),
            database=env.get("NEO4J_DATABASE") or n4.get("database"),
        ),
        llm=LLMSettings(
            base_url=env.get("SCHOLARKG_LLM_BASE_URL") or llm.get("base_url"),
            model=env.get("SCHOLARKG_LLM_MODEL") or llm.get("model"),
            api_key=env.get("SCHOLARKG_LLM_API_KEY") or llm.get("api_key"),
            timeout=_number(
                float, "SCHOLARKG_LLM_TIMEOUT", env.get("SCHOLARKG_LLM_TIMEOUT"), llm.get("timeout")
            ),
            concurrency=_number(
                int,
                "SCHOLARKG_LLM_CONCURRENCY",
                env.get("SCHOLARKG_LLM_CONCURRENCY"),
                llm.get("concurrency"),
            ),
            max_tokens=_number(
                int,
                "SCHOLARKG_LLM_MAX_TOKENS",
                env.get("SCHOLARKG_LLM_MAX_TOKENS"),
                llm.get("max_tokens"),
            ),
        ),
    )
    if settings.backend not in BACKENDS:
        raise ConfigError(f"unknown backend {settings.backend!r}; choose one of {BACKENDS}")
    return settings.with_overrides(**overrides)
