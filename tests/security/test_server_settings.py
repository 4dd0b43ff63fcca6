"""The servers' security settings as configured: defaults, overrides, and bad values refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from scholarkg.errors import ConfigError, InputError
from scholarkg.store.falkordb.server import DEFAULT_QUERY_MEMORY, default_module_args
from scholarkg.store.neo4j.server import (
    DEFAULT_TX_TIMEOUT,
    compiler_arguments,
    guard_arguments,
    out_of_memory_arguments,
    pause_arguments,
    pause_log_arguments,
    render_settings,
    server_settings,
    young_generation_arguments,
)


def test_neo4j_defaults(tmp_path: Path) -> None:
    s = server_settings(import_dir=tmp_path / "import", heap="2g", env={})
    assert s["server.directories.import"] == str(tmp_path / "import")
    assert s["internal.dbms.cypher_ip_blocklist"] == "0.0.0.0/0,::/0"
    assert s["db.transaction.timeout"] == f"{DEFAULT_TX_TIMEOUT}s"
    assert s["db.memory.transaction.max"] == str(512 << 20)  # a quarter of the heap
    assert s["dbms.security.procedures.unrestricted"] == "gds.*,scholarkg.*"
    text = render_settings(s)
    assert text.startswith("# The managed Neo4j's settings")
    assert f"db.transaction.timeout={DEFAULT_TX_TIMEOUT}s\n" in text


def test_neo4j_guard_arguments() -> None:
    """The launcher's guard: heap 85 %, a row 1 s past its transaction, GDS graphs a quarter of
    the heap; each variable changes one, 0 turns it off, nonsense is refused."""
    assert guard_arguments(env={}) == [
        "--heap-guard", "0.85", "--overrun-guard", "1", "--gds-catalogue", "0.25"
    ]  # fmt: skip
    env = {
        "SCHOLARKG_NEO4J_HEAP_GUARD": "0.9",
        "SCHOLARKG_NEO4J_OVERRUN_GUARD": "0",
        "SCHOLARKG_NEO4J_GDS_CATALOGUE": "0.5",
    }
    assert guard_arguments(env=env) == [
        "--heap-guard", "0.9", "--overrun-guard", "0", "--gds-catalogue", "0.5"
    ]  # fmt: skip
    for name, value in (
        ("SCHOLARKG_NEO4J_HEAP_GUARD", "1.5"),
        ("SCHOLARKG_NEO4J_GDS_CATALOGUE", "-1"),
        ("SCHOLARKG_NEO4J_OVERRUN_GUARD", "soon"),
    ):
        with pytest.raises(ConfigError, match=name):
            guard_arguments(env={name: value})


def test_neo4j_young_generation_is_bounded() -> None:
    """64 MiB by default (a pause copies at most that much of a live list), at most half the
    heap, 0 leaves the sizing to G1, nonsense is refused."""
    assert young_generation_arguments("2g", env={}) == ["-XX:MaxNewSize=64m"]
    assert young_generation_arguments("96m", env={}) == ["-XX:MaxNewSize=48m"]
    env = {"SCHOLARKG_NEO4J_MAX_YOUNG": "256m"}
    assert young_generation_arguments("8g", env=env) == ["-XX:MaxNewSize=256m"]
    assert young_generation_arguments("2g", env={"SCHOLARKG_NEO4J_MAX_YOUNG": "0"}) == []
    with pytest.raises(ConfigError, match="SCHOLARKG_NEO4J_MAX_YOUNG"):
        young_generation_arguments("2g", env={"SCHOLARKG_NEO4J_MAX_YOUNG": "lots"})


def test_neo4j_heap_is_touched_at_start_whatever_the_young_bound() -> None:
    """The managed JVM touches its heap at start (no thread pages it in at a safepoint's
    cost), with the young generation bounded or left to G1, unless told not to."""
    assert pause_arguments("2g", env={}) == ["-XX:MaxNewSize=64m", "-XX:+AlwaysPreTouch"]
    assert pause_arguments("2g", env={"SCHOLARKG_NEO4J_MAX_YOUNG": "0"}) == ["-XX:+AlwaysPreTouch"]
    assert pause_arguments("2g", env={"SCHOLARKG_NEO4J_PRE_TOUCH": "0"}) == ["-XX:MaxNewSize=64m"]
    with pytest.raises(ConfigError, match="SCHOLARKG_NEO4J_PRE_TOUCH"):
        pause_arguments("2g", env={"SCHOLARKG_NEO4J_PRE_TOUCH": "sometimes"})


def test_neo4j_pause_log_is_bounded_and_takes_any_home(tmp_path: Path) -> None:
    """Two files of 8 MB at most (the current one and one earlier); the path quoted, so a ':'
    in the home cannot end it."""
    path = tmp_path / "a:b c" / "jvm-pauses.log"
    assert pause_log_arguments(path) == [
        f'-Xlog:gc,safepoint:file="{path}":time,uptime:filecount=1,filesize=8m'
    ]
    # a '"' cannot be quoted: no pause log rather than a JVM that does not start
    assert pause_log_arguments(tmp_path / 'say "hi"' / "jvm-pauses.log") == []


def test_neo4j_ends_on_out_of_memory_only_where_the_guard_cannot_stop_a_query() -> None:
    """Java 17 (the guard stops runaway rows): an allocation that fails ends its query, not
    the server. A Java without ``Thread.stop0``, an unknown one, or the heap rule off: the
    JVM ends on the first OutOfMemoryError, and the next command starts it again."""
    assert out_of_memory_arguments(17, env={}) == []
    assert out_of_memory_arguments(19, env={}) == []
    assert out_of_memory_arguments(21, env={}) == ["-XX:+ExitOnOutOfMemoryError"]
    assert out_of_memory_arguments(None, env={}) == ["-XX:+ExitOnOutOfMemoryError"]
    off = {"SCHOLARKG_NEO4J_HEAP_GUARD": "0"}
    assert out_of_memory_arguments(17, env=off) == ["-XX:+ExitOnOutOfMemoryError"]


def test_neo4j_optimising_compiler_starts_later() -> None:
    """The JIT's C2 thresholds ten times the JVM's by default (a just-started server spent 40 %
    of a load's CPU compiling), SCHOLARKG_NEO4J_C2_DELAY scales them, 1 gives the JVM's own,
    nonsense is refused."""
    assert compiler_arguments(env={}) == [
        "-XX:Tier4InvocationThreshold=50000",
        "-XX:Tier4MinInvocationThreshold=6000",
        "-XX:Tier4CompileThreshold=150000",
        "-XX:Tier4BackEdgeThreshold=400000",
    ]
    assert compiler_arguments(env={"SCHOLARKG_NEO4J_C2_DELAY": "3"})[0] == (
        "-XX:Tier4InvocationThreshold=15000"
    )
    assert compiler_arguments(env={"SCHOLARKG_NEO4J_C2_DELAY": "1"}) == []
    for value in ("0", "-2", "soon", "1.5"):
        with pytest.raises(ConfigError, match="SCHOLARKG_NEO4J_C2_DELAY"):
            compiler_arguments(env={"SCHOLARKG_NEO4J_C2_DELAY": value})


def test_neo4j_overrides(tmp_path: Path) -> None:
    env = {"SCHOLARKG_NEO4J_TX_TIMEOUT": "0", "SCHOLARKG_NEO4J_TX_MEMORY": "1g"}
    s = server_settings(import_dir=tmp_path, heap="4g", env=env)
    assert s["db.transaction.timeout"] == "0s"  # no limit
    assert s["db.memory.transaction.max"] == str(1 << 30)
    assert server_settings(import_dir=tmp_path, heap="8g", env={})[
        "db.memory.transaction.max"
    ] == str(2 << 30)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("SCHOLARKG_NEO4J_TX_TIMEOUT", "ten", "whole number of seconds"),
        ("SCHOLARKG_NEO4J_TX_TIMEOUT", "-1", "0 \\(no limit\\) or more"),
        ("SCHOLARKG_NEO4J_TX_MEMORY", "lots", "not a size"),
        # a line break would add a setting of the caller's choosing to neo4j.conf
        ("SCHOLARKG_NEO4J_PROCEDURES", "apoc.x\ndbms.security.auth_enabled=false", "pattern"),
        ("SCHOLARKG_NEO4J_PROCEDURES", "gds.*,apoc.*;rm", "pattern"),
    ],
)
def test_neo4j_bad_values_are_refused(tmp_path: Path, name: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        server_settings(import_dir=tmp_path, heap="2g", env={name: value})


def test_falkordb_defaults_and_override(tmp_path: Path) -> None:
    args = default_module_args(tmp_path, env={})
    assert args == {
        "IMPORT_FOLDER": f"{tmp_path / 'import'}/",
        "QUERY_MEM_CAPACITY": 2 << 30,
        # the same 15 minutes as the managed Neo4j's db.transaction.timeout, reads and writes
        "TIMEOUT_MAX": 900_000,
        "TIMEOUT_DEFAULT": 900_000,
        # no finished-query log: its task races the module's start (test_start_race.py)
        "CMD_INFO": "no",
    }
    assert DEFAULT_QUERY_MEMORY == 2 << 30
    timeouts = default_module_args(tmp_path, env={"SCHOLARKG_FALKORDB_TIMEOUT": "20"})
    assert (timeouts["TIMEOUT_MAX"], timeouts["TIMEOUT_DEFAULT"]) == (20_000, 20_000)
    assert "TIMEOUT_MAX" not in default_module_args(
        tmp_path, env={"SCHOLARKG_FALKORDB_TIMEOUT": "0"}
    )
    with pytest.raises(InputError, match="SCHOLARKG_FALKORDB_TIMEOUT"):
        default_module_args(tmp_path, env={"SCHOLARKG_FALKORDB_TIMEOUT": "soon"})
    assert default_module_args(tmp_path, env={"SCHOLARKG_FALKORDB_QUERY_MEMORY": "512m"})[
        "QUERY_MEM_CAPACITY"
    ] == (512 << 20)
    assert (
        default_module_args(tmp_path, env={"SCHOLARKG_FALKORDB_QUERY_MEMORY": "0"})[
            "QUERY_MEM_CAPACITY"
        ]
        == 0
    )
    with pytest.raises(InputError, match="not a size"):
        default_module_args(tmp_path, env={"SCHOLARKG_FALKORDB_QUERY_MEMORY": "much"})


def test_falkordb_process_memory_limit() -> None:
    """RLIMIT_AS of the server process: three quarters of physical memory unless set."""
    from scholarkg.store.falkordb.server import memory_limit

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert memory_limit(env={}) == int(physical * 0.75)
    assert memory_limit(env={"SCHOLARKG_FALKORDB_MEMORY": "12g"}) == 12 << 30
    assert memory_limit(env={"SCHOLARKG_FALKORDB_MEMORY": "0"}) is None
    with pytest.raises(InputError, match="not a size"):
        memory_limit(env={"SCHOLARKG_FALKORDB_MEMORY": "lots"})


def _compose_environment() -> dict[str, str]:
    import yaml

    root = Path(__file__).resolve().parents[2]
    compose = yaml.safe_load((root / "docker-compose.yml").read_text(encoding="utf-8"))
    env = compose["services"]["neo4j"]["environment"]
    return {str(k): str(v) for k, v in env.items()}


def _neo4j_env_name(setting: str) -> str:
    """The docker image's variable for a setting: NEO4J_, '_' doubled, '.' as '_'."""
    return "NEO4J_" + setting.replace("_", "__").replace(".", "_")


def test_docker_compose_has_the_managed_servers_lockdown(tmp_path: Path) -> None:
    """docker-compose.yml carries the managed server's limits and lockdown (issue #37: it had
    transaction timeout 0, apoc.* unrestricted and no allow-list)."""
    from scholarkg.store.neo4j.server import (
        ALLOWED_PROCEDURES,
        APOC_ENVIRONMENT,
        DEFAULT_TX_MEMORY_SHARE,
        _size_bytes,
        pause_arguments,
    )

    env = _compose_environment()
    heap = env["NEO4J_server_memory_heap_max__size"]
    managed = server_settings(import_dir=tmp_path, heap=heap, env={})
    assert env[_neo4j_env_name("db.transaction.timeout")] == f"{DEFAULT_TX_TIMEOUT}s"
    assert _size_bytes(env[_neo4j_env_name("db.memory.transaction.max")]) == (
        _size_bytes(heap) // DEFAULT_TX_MEMORY_SHARE
    )
    allow = env[_neo4j_env_name("dbms.security.procedures.allowlist")].split(",")
    assert allow == list(ALLOWED_PROCEDURES)
    for key in (
        "dbms.security.procedures.unrestricted",
        "internal.dbms.cypher_ip_blocklist",
        "dbms.usage_report.enabled",
        "client.allow_telemetry",
        "browser.remote_content_hostname_whitelist",
        "db.transaction.monitor.check.interval",
    ):
        assert env[_neo4j_env_name(key)] == managed[key], key
    for key, value in APOC_ENVIRONMENT.items():
        assert env[key] == value
    # the young generation bounded and the heap touched at start, as the managed server's JVM
    # has them (the image's own -XX:+AlwaysPreTouch is replaced by this variable)
    assert env["NEO4J_server_jvm_additional"].split() == pause_arguments(heap, env={})


def test_the_docs_count_the_allow_list_as_configured() -> None:
    """docs/backends.md says how many names the allow-list holds: the number configured."""
    from scholarkg.store.neo4j.server import ALLOWED_PROCEDURES

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "backends.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if "`dbms.security.procedures.allowlist`" in line)
    assert f"the {len(ALLOWED_PROCEDURES)} GDS/APOC/scholarkg names" in row


def test_neo4j_out_of_heap_in_a_query_is_a_query_limit() -> None:
    """Without the exit flag, an allocation that fails inside one query comes back as Neo4j's
    transient OutOfMemoryError: scholarkg shows it as a query limit (the server went on), not
    as a broken query; other transient errors stay what they were."""
    from neo4j.exceptions import Neo4jError

    from scholarkg.errors import CypherError, QueryLimitExceeded
    from scholarkg.store.neo4j.store import OUT_OF_HEAP, cypher_error

    # the driver's own constructor of a server error (private, but what it builds from a
    # FAILURE message); if it goes away this test fails loudly, it cannot pass silently
    oom = Neo4jError._hydrate_neo4j(code=OUT_OF_HEAP, message="Java heap space")
    err = cypher_error(oom, "RETURN 1")
    assert isinstance(err, QueryLimitExceeded)
    assert "ran out of heap" in str(err) and "server goes on" in str(err)
    other = Neo4jError._hydrate_neo4j(
        code="Neo.TransientError.Transaction.DeadlockDetected", message="deadlock"
    )
    assert type(cypher_error(other, "RETURN 1")) is CypherError
