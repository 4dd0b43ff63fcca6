"""The explorer's HTTP face: a stdlib ``ThreadingHTTPServer`` on loopback, behind a token.

Security model (the app can read, and with ``--allow-writes`` change, the whole graph):

* it binds ``127.0.0.1`` only, never a wildcard address;
* every request needs the random token (``secrets.token_urlsafe``), in the ``token``
  query parameter (the URL printed at start, static files) or the ``X-Scholarkg-Token``
  header (API calls from the page), compared in constant time; without it: 403;
* the ``Host`` header must name the loopback address and our port, so a web page whose
  DNS name is re-bound to 127.0.0.1 cannot talk to it (DNS rebinding);
* POST bodies must be JSON (a cross-site form cannot send that without a CORS preflight,
  which this server never answers), and a foreign ``Origin`` is refused;
* responses carry a strict Content-Security-Policy (scripts only from this server), no
  caching, and ``Referrer-Policy: no-referrer`` so the token never leaks in a Referer.

Read-only mode and query limits are enforced below this layer: on the database's plan of
each query (``explorer/guard.py``: no writes, no LOAD CSV, no procedure off the list) and by
the database itself (see ``GraphStore.explore``).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from scholarkg.errors import InputError, ScholarKGError
from scholarkg.explorer.app import Explorer
from scholarkg.textio import json_safe

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
TOKEN_HEADER = "X-Scholarkg-Token"
MAX_BODY = 1 << 20
#: static files served, by URL name → (package file, content type)
STATIC: dict[str, tuple[str, str]] = {
    "app.js": ("app.js", "text/javascript; charset=utf-8"),
    "app.css": ("app.css", "text/css; charset=utf-8"),
    "vendor/cytoscape.min.js": ("vendor/cytoscape.min.js", "text/javascript; charset=utf-8"),
    "vendor/cytoscape.LICENSE": ("vendor/cytoscape.LICENSE", "text/plain; charset=utf-8"),
}
#: scripts only from this server; inline *styles* are allowed because Cytoscape.js sets
#: its container's style inline (inline styles cannot run code)
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; "
    "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
#: a run report is our own HTML but shows text from run files: no scripts, sandboxed
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"
_TOKEN_IN_URL = re.compile(r"token=[^&\s]+")


def _static(name: str) -> bytes:
    return (resources.files("scholarkg.explorer") / "static" / name).read_bytes()


class ExplorerServer(ThreadingHTTPServer):
    """Serves one ``Explorer`` on ``127.0.0.1:port`` (0: a free port chosen by the OS)."""

    daemon_threads = True
    #: SO_REUSEADDR: a restart can reuse the port at once; on Linux a second listener
    #: on the same port still fails
    allow_reuse_address = True

    def __init__(self, explorer: Explorer, *, port: int = 0, token: str | None = None) -> None:
        self.explorer = explorer
        self.token = token or secrets.token_urlsafe(32)
        try:
            super().__init__((LOOPBACK, port), _Handler)
        except OSError as err:
            raise InputError(f"cannot listen on {LOOPBACK}:{port}: {err.strerror}") from err
        self.port = int(self.server_address[1])
        self.allowed_hosts = {f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"}
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The address to open, token included (like Jupyter's)."""
        return f"http://{LOOPBACK}:{self.port}/?token={self.token}"

    def start_background(self) -> None:
        """Serve from a daemon thread (tests, and the CLI while it waits for Ctrl-C)."""
        self._thread = threading.Thread(target=self.serve_forever, name="explorer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    server: ExplorerServer
    server_version = "scholarkg-explore"
    sys_version = ""

    # -- plumbing ------------------------------------------------------------------------
    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), _TOKEN_IN_URL.sub("token=***", format % args))

    def _send(self, status: int, body: bytes, content_type: str, *, csp: str = PAGE_CSP) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "SAMEORIGIN")
        self.send_header("Content-Security-Policy", csp)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = 200) -> None:
        body = json.dumps(json_safe(data), ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json({"error": message}, status)

    def _allowed(self, query: dict[str, list[str]]) -> bool:
        """Host header, then token (query or header), checked before anything else runs."""
        host = self.headers.get("Host", "")
        if host not in self.server.allowed_hosts:
            self._error(HTTPStatus.FORBIDDEN, "forbidden: unexpected Host header")
            return False
        given = self.headers.get(TOKEN_HEADER) or (query.get("token") or [""])[0]
        if not given or not hmac.compare_digest(
            given.encode("utf-8"), self.server.token.encode("utf-8")
        ):
            self._error(HTTPStatus.FORBIDDEN, "forbidden: missing or wrong token")
            return False
        return True

    def _dispatch(self, handler: Any, *args: Any) -> None:
        """Run one API call; our errors are 400 with their one-line message."""
        try:
            result = handler(*args)
        except ScholarKGError as err:
            self._error(HTTPStatus.BAD_REQUEST, str(err))
            return
        except Exception:
            log.exception("explorer request failed")
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error (see the server log)")
            return
        if isinstance(result, bytes):
            self._send(200, result, "text/html; charset=utf-8", csp=REPORT_CSP)
        else:
            self._json(result)

    # -- verbs ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        if not self._allowed(query):
            return
        app = self.server.explorer
        path = url.path
        one = (query.get("id") or [""])[0]
        if path in ("/", "/index.html"):
            page = _static("index.html").decode("utf-8").replace("{{token}}", self.server.token)
            self._send(200, page.encode("utf-8"), "text/html; charset=utf-8")
        elif path.startswith("/static/") and path[len("/static/") :] in STATIC:
            name, ctype = STATIC[path[len("/static/") :]]
            self._send(200, _static(name), ctype)
        elif path == "/api/info":
            self._dispatch(app.info)
        elif path == "/api/schema":
            self._dispatch(app.schema)
        elif path == "/api/saved":
            self._dispatch(app.saved)
        elif path == "/api/leaderboards":
            self._dispatch(app.leaderboards)
        elif path == "/api/leaderboard":
            self._dispatch(app.leaderboard, one)
        elif path == "/api/runs":
            self._dispatch(app.runs)
        elif path == "/api/run":
            self._dispatch(app.run, one)
        elif path == "/api/report":
            self._dispatch(lambda: app.run_report(one).encode("utf-8"))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"not found: {path}")

    do_HEAD = do_GET

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        if not self._allowed(parse_qs(url.query)):
            return
        origin = self.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc not in self.server.allowed_hosts:
            self._error(HTTPStatus.FORBIDDEN, "forbidden: cross-origin request")
            return
        if self.headers.get_content_type() != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (application/json)")
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0:  # a negative length would make read() wait for the client to close
            self._error(HTTPStatus.BAD_REQUEST, "bad Content-Length")
            return
        if length > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "request body over 1 MiB")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            self._error(HTTPStatus.BAD_REQUEST, f"invalid JSON body: {err}")
            return
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
            return
        app = self.server.explorer
        if url.path == "/api/query":
            self._dispatch(app.query, body.get("query"), body.get("params"))
        elif url.path == "/api/expand":
            self._dispatch(app.expand, body.get("ref"))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"not found: {url.path}")

    def _refuse(self) -> None:
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "method not allowed")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse
