"""The explorer works offline: the drawing library ships in the package, pinned by hash,
with its licence, and the page loads nothing from another host."""

from __future__ import annotations

import re
from importlib import resources

from scholarkg.explorer import vendor
from scholarkg.explorer.server import STATIC
from scholarkg.textio import sha256_file

STATIC_DIR = resources.files("scholarkg.explorer") / "static"


def test_vendored_cytoscape_matches_the_pinned_hash() -> None:
    assert sha256_file(vendor.VENDOR_DIR / "cytoscape.min.js") == vendor.CYTOSCAPE_SHA256
    licence = (vendor.VENDOR_DIR / "cytoscape.LICENSE").read_text(encoding="utf-8")
    assert "The Cytoscape Consortium" in licence
    assert "Permission is hereby granted, free of charge" in licence  # MIT


def test_page_and_app_load_nothing_external() -> None:
    for name in ("index.html", "app.js", "app.css"):
        text = (STATIC_DIR / name).read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), name
        assert "cdn" not in text.lower(), name


def test_every_served_static_file_exists() -> None:
    for name, (path, _ctype) in STATIC.items():
        assert (STATIC_DIR / path).is_file(), name
