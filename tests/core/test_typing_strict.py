"""mypy runs strict on the whole package and its tests, and no module of ours is exempt.

``make lint`` runs mypy with the settings in ``pyproject.toml`` over ``scholarkg/`` and
``tests/``; this test reads those settings so that relaxing them is a visible, failing change
rather than a quiet edit: the global ``strict`` must stay on, both folders must stay checked,
no override may turn a check off for a module of ours (the package's, or a test module, which
mypy names from ``tests/`` down: ``conftest``, ``aaar.test_run_tasks``...), and none is on an
``ignore_errors`` list (fix the module instead). ``type: ignore`` comments are checked by
``test_type_ignores.py``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: strict's flags: an override setting one of these to false relaxes strict for its modules
STRICT_FLAGS = frozenset(
    {
        "strict",
        "warn_unused_configs",
        "disallow_any_generics",
        "disallow_subclassing_any",
        "disallow_untyped_calls",
        "disallow_untyped_defs",
        "disallow_incomplete_defs",
        "check_untyped_defs",
        "disallow_untyped_decorators",
        "warn_redundant_casts",
        "warn_unused_ignores",
        "warn_return_any",
        "no_implicit_reexport",
        "strict_equality",
        "extra_checks",
    }
)


def mypy_config() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        config: dict[str, Any] = tomllib.load(fh)["tool"]["mypy"]
    return config


def modules_of(override: dict[str, Any]) -> list[str]:
    module = override["module"]
    return [module] if isinstance(module, str) else list(module)


ROOT_TESTS = ROOT / "tests"


def ours(module: str) -> bool:
    """A module of the package, or one mypy finds under ``tests/`` (its name, or its
    top-level package, is a file or folder there; a pattern like ``aaar.*`` too)."""
    if module == "scholarkg" or module.startswith("scholarkg."):
        return True
    top = module.split(".")[0].rstrip("*")
    return bool(top) and ((ROOT_TESTS / f"{top}.py").is_file() or (ROOT_TESTS / top).is_dir())


def test_strict_is_on_for_the_whole_package() -> None:
    config = mypy_config()
    assert config.get("strict") is True
    assert config.get("files") == ["scholarkg", "tests"]
    assert not config.get("disable_error_code"), "a globally disabled error code relaxes strict"


def test_no_module_of_ours_ignores_errors() -> None:
    exempt: set[str] = set()
    for override in mypy_config().get("overrides", []):
        if override.get("ignore_errors"):
            exempt.update(m for m in modules_of(override) if ours(m))
    assert not exempt, f"put on an ignore_errors list (fix the module instead): {sorted(exempt)}"


def test_no_override_relaxes_strict_for_our_modules() -> None:
    relaxed: list[str] = []
    for override in mypy_config().get("overrides", []):
        names = [m for m in modules_of(override) if ours(m)]
        if not names:
            continue  # third-party modules without type information
        off = sorted(k for k, v in override.items() if k in STRICT_FLAGS and v is False)
        if override.get("disable_error_code"):
            off.append("disable_error_code")
        if off:
            relaxed.append(f"{names}: {off}")
    assert not relaxed, relaxed


def test_the_rule_knows_test_modules_as_ours() -> None:
    assert ours("scholarkg.store.base") and ours("conftest") and ours("aaar.test_run_tasks")
    assert ours("aaar.*") and ours("_fakes")
    assert not ours("numpy") and not ours("yaml.*")
