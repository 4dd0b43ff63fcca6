"""Re-vendor the graph-drawing library the explorer ships: ``python -m scholarkg.explorer.vendor``.

The explorer must work offline after ``pip install`` (no CDN, no download at run time),
so the minified Cytoscape.js build and its licence live in ``static/vendor/``. This script
is the only way they change: ``npm pack`` fetches the pinned release from the npm registry
(npm checks the tarball's integrity), and the file's SHA-256 pinned below must match, so an
upgrade is a reviewed edit of ``CYTOSCAPE_VERSION`` and ``CYTOSCAPE_SHA256``.
``make vendor-explorer`` runs it; ``--version X`` prints the new hash to pin.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from scholarkg.errors import ConfigError, InputError
from scholarkg.textio import sha256_file

#: Cytoscape.js (MIT, The Cytoscape Consortium): https://js.cytoscape.org
CYTOSCAPE_VERSION = "3.34.4"
#: SHA-256 of ``package/dist/cytoscape.min.js`` in the npm tarball of that version
CYTOSCAPE_SHA256 = "081591ab735b2b6a3b31a3c60f8f3a3e2fee8c92939e0c7820ad1208571b6cd8"

VENDOR_DIR = Path(__file__).parent / "static" / "vendor"
#: files taken from the tarball → name under ``static/vendor``
FILES = {
    "package/dist/cytoscape.min.js": "cytoscape.min.js",
    "package/LICENSE": "cytoscape.LICENSE",
}


def vendor(version: str = CYTOSCAPE_VERSION, dest: Path = VENDOR_DIR) -> str:
    """Fetch ``cytoscape@version`` with ``npm pack`` and copy its build into ``dest``.

    Returns the build's SHA-256. For the pinned version a different hash is an error
    (the registry's file is not the one we reviewed); for another version the caller
    pins the printed hash.
    """
    npm = shutil.which("npm")
    if npm is None:
        raise ConfigError("npm is needed to re-vendor Cytoscape.js (apt-get install npm)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(
            [npm, "pack", f"cytoscape@{version}", "--silent", "--pack-destination", str(work)],
            check=True,
            cwd=work,
            stdout=subprocess.DEVNULL,
        )
        (tarball,) = work.glob("cytoscape-*.tgz")
        with tarfile.open(tarball) as tar:
            for member in FILES:
                tar.extract(member, work, filter="data")
        digest = sha256_file(work / "package/dist/cytoscape.min.js")
        if version == CYTOSCAPE_VERSION and digest != CYTOSCAPE_SHA256:
            raise InputError(
                f"cytoscape {version}: build hash {digest} differs from the pinned "
                f"{CYTOSCAPE_SHA256}; refusing to vendor it"
            )
        dest.mkdir(parents=True, exist_ok=True)
        for member, name in FILES.items():
            shutil.copyfile(work / member, dest / name)
    return digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=CYTOSCAPE_VERSION, help="cytoscape version")
    args = parser.parse_args()
    digest = vendor(args.version)
    print(f"vendored cytoscape {args.version} into {VENDOR_DIR} (sha256 {digest})")


if __name__ == "__main__":
    main()
