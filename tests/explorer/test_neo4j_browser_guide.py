"""Neo4j Browser as a place to explore: the scholarkg guide and style sheet.

The fast tests read what ``browser_guide.py`` writes and the settings that make the Browser
play it. The slow one starts a managed Neo4j with the Browser, logs in from headless
Chromium (Debian's package, through Selenium, as ``test_browser.py``), and checks what a user
sees: the guide opened by itself with every saved query, a snippet that goes into the editor
on a click, a Paper drawn with its title as caption; it saves the screenshot
``docs/img/neo4j-browser-guide.png`` and ``neo4j-browser-style.png`` when
``SCHOLARKG_DOCS_SCREENSHOTS=1``. It also checks that the page fetched nothing beyond
loopback (the launcher's Content-Security-Policy refuses the app's internet calls).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from scholarkg.queries.saved import browser_query_files
from scholarkg.store.neo4j.browser_guide import (
    cypher_value,
    grass,
    guide_html,
    param_command,
    query_body,
)
from scholarkg.store.neo4j.server import (
    GUIDE_PAGE,
    GUIDE_STYLE,
    ManagedNeo4j,
    java_available,
    server_settings,
)

from ._explorer import FLAGS

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img" / "neo4j-browser-guide.png"
DOCS_STYLE_IMG = DOCS_IMG.with_name("neo4j-browser-style.png")
LOOPBACK = ("http://127.0.0.1:", "http://localhost:", "ws://127.0.0.1:", "ws://localhost:")


class _Runnables(HTMLParser):
    """The text of every ``<pre class="… runnable …">`` and the slide count."""

    def __init__(self) -> None:
        super().__init__()
        self.snippets: list[str] = []
        self.slides = 0
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "slide":
            self.slides += 1
        if tag == "pre" and "runnable" in (dict(attrs).get("class") or "").split():
            self._in_pre = True
            self.snippets.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.snippets[-1] += data


def test_guide_lists_every_saved_query_as_a_runnable_snippet() -> None:
    queries = browser_query_files()
    assert len(queries) >= 12
    page = _Runnables()
    page.feed(guide_html(queries, style_url="http://127.0.0.1:1/guide/style.grass"))
    assert page.slides == len(queries) + 1  # a welcome slide, then one per query
    assert ":style http://127.0.0.1:1/guide/style.grass" in page.snippets  # one click, no dump
    for q in queries:
        assert query_body(q) in page.snippets, q.name
        assert not query_body(q).startswith("//")
        for name in q.params:
            assert param_command(name, q) in page.snippets, (q.name, name)
    # one `:param` per parameter: `:params {limit: 25}` made the Browser send 25.0
    assert not any(s.startswith(":params") for s in page.snippets)
    assert ":param limit => 25" in page.snippets
    # every text is escaped: no query can inject markup
    assert "<script" not in guide_html(queries).lower()


def test_id_parameters_are_picked_from_the_graph_not_invented() -> None:
    """An id parameter's block runs the query file's ``:example`` expression (a real node of
    the graph the Browser opens on), never a literal id like 'p1' that no graph holds."""
    for q in browser_query_files():
        for name, value in q.params.items():
            if name.endswith("Id"):
                assert name in q.examples, (q.name, name)
                command = param_command(name, q)
                assert command.startswith(f":param {name} => COLLECT {{"), command
                assert repr(value) not in command
            elif isinstance(value, int):
                assert param_command(name, q) == f":param {name} => {value}"


def test_params_snippets_are_cypher_literals() -> None:
    assert cypher_value("it's") == "'it\\'s'"
    assert cypher_value(["a", 2, None, True]) == "['a', 2, null, true]"
    assert cypher_value(0.5) == "0.5"


def test_style_sheet_captions_papers_queries_authors() -> None:
    text = grass()
    for label, prop in (("Paper", "title"), ("Query", "text"), ("Author", "name")):
        rule = re.search(rf"node\.{label} \{{(.*?)\n\}}", text, re.DOTALL)
        assert rule is not None and f'caption: "{{{prop}}}";' in rule.group(1), label


def test_the_server_plays_the_guide_on_connect(tmp_path: Path) -> None:
    base = "http://127.0.0.1:7777/guide"
    settings = server_settings(import_dir=tmp_path, heap="2g", guide=base, env={})
    # the guide only: a `style` command prints the whole sheet in a frame above the guide
    assert settings["browser.post_connect_cmd"] == f"play {base}/{GUIDE_PAGE}"
    assert GUIDE_STYLE not in settings["browser.post_connect_cmd"]
    assert settings["browser.remote_content_hostname_whitelist"] == "127.0.0.1,localhost"
    assert settings["client.allow_telemetry"] == "false"
    assert settings["dbms.usage_report.enabled"] == "false"
    assert "browser.post_connect_cmd" not in server_settings(import_dir=tmp_path, heap="2g", env={})


# -- in a real browser -------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def _wait(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
        except Exception:  # the page is still rendering: elements come and go
            value = None
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


GUIDE_TITLE = "scholarkg: the scholarly record as a graph"

#: a small graph on which every saved query has something to show: a loaded work cited by two
#: others, a stub all three cite, a comparison, a leaderboard, a review, a query's aspect
GUIDE_DATA = """
CREATE (a:Paper {id: 'doi:10.1/a', title: 'Attention Is All You Need', source: 'openalex',
                 year: 2017})-[:AUTHORED_BY]->(:Author {id: 'a1', name: 'Ashish Vaswani'})
CREATE (b:Paper {id: 'doi:10.1/b', title: 'Citing work one', source: 'openalex', year: 2020})
CREATE (c:Paper {id: 'doi:10.1/c', title: 'Citing work two', source: 'openalex', year: 2021})
CREATE (s:Paper:Stub {id: 'openalex:W9'})
CREATE (b)-[:CITES]->(a), (c)-[:CITES]->(a), (b)-[:CITES]->(s), (c)-[:CITES]->(s),
       (a)-[:CITES]->(s), (b)-[:COMPARES_WITH]->(c)
CREATE (l:Leaderboard {id: 'lb:x'})
CREATE (r:Result {id: 'r1', method: 'ours', score: 1.0})-[:IN_LEADERBOARD]->(l)
CREATE (b)-[:HAS_RESULT]->(r)
CREATE (:Review {id: 'rv1', reviewer: 'R1'})-[:REVIEWS]->(a)
CREATE (:Query {id: 'q1', text: 'a question'})-[:HAS_ASPECT]->(:Aspect {id: 'asp1',
        aspect_id: '1', text: 'an aspect'})
"""
#: the saved queries that must return rows on GUIDE_DATA (the others may return none there)
ROWS_ON_GUIDE_DATA = {
    "co_citation", "paper_card", "paper_citation_neighbourhood", "bibliographic_coupling",
    "cited_not_loaded", "most_cited_per_year", "leaderboard_entries", "leaderboard_graph",
    "paper_reviews", "comparison_chain", "query_aspects_judgements",
}  # fmt: skip


def _frames(drv: Any) -> list[Any]:
    from selenium.webdriver.common.by import By

    return list(drv.find_elements(By.CSS_SELECTOR, "[data-testid=frame]"))


def _run(drv: Any, box: Any, text: str) -> str:
    """Type ``text`` (one line) into the Browser's editor, run it, return the new frame's
    text once it has finished."""
    from selenium.webdriver.common.keys import Keys

    for command in (":clear", text):  # one frame at a time: a rerun may reuse its frame
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.DELETE)
        box.send_keys(command)
        box.send_keys(Keys.CONTROL, Keys.ENTER)
        if command == ":clear":
            _wait(lambda: not _frames(drv), "the frames cleared")

    def done() -> str | None:
        frames = _frames(drv)
        if not frames:
            return None
        body = frames[0].get_attribute("textContent") or ""
        finished = any(
            mark in body
            for mark in ("Started streaming", "rror", "Displaying", "no changes, no records",
                         "no records")
        ) or (text.startswith(":param") and len(body) > len(text))  # fmt: skip
        return body if finished else None

    return str(_wait(done, f"the frame of {text[:60]!r}"))


def _run_every_guide_query(drv: Any, box: Any) -> None:
    """Every slide as a user runs it: each ``:param`` block, then the query; no error, the
    integer parameters stay integers, the id parameters name nodes of the graph."""
    failures = []
    for q in browser_query_files():
        for name in q.params:
            out = _run(drv, box, param_command(name, q))
            if "rror" in out:
                failures.append(f"{q.name} :param {name}: {out[:300]}")
        out = _run(drv, box, " ".join(query_body(q).split()))
        if "rror" in out or "Invalid input" in out:
            failures.append(f"{q.name}: {out[:400]}")
        elif q.name in ROWS_ON_GUIDE_DATA:
            m = re.search(r"Started streaming (\d+) record|Displaying (\d+) node", out)
            if not m or int(m.group(1) or m.group(2)) == 0:
                failures.append(f"{q.name}: no rows ({out[:200]})")
    assert failures == [], "\n".join(failures)


def _log_in_and_see_the_guide(drv: Any, password: str, timeout: float = 60.0) -> bool:
    """Log in through the Browser's form; True once the guide's first slide is on the page."""
    from selenium.webdriver.common.by import By

    def type_password() -> bool:
        # the form is in the page before it takes input (ElementNotInteractable): retried
        field = drv.find_element(By.CSS_SELECTOR, "[data-testid=password]")
        field.clear()
        field.send_keys(password)
        return bool(field.get_attribute("value") == password)

    _wait(type_password, "the password typed into the login form")
    _wait(lambda: _click(drv.find_element(By.CSS_SELECTOR, "[data-testid=connect]")),
          "the connect button")  # fmt: skip
    try:
        _wait(lambda: GUIDE_TITLE in drv.page_source, "the scholarkg guide", timeout)
    except AssertionError:
        return False
    return True


def _click(element: Any) -> bool:
    """Click, for ``_wait``: an element the app is still laying out refuses clicks for a
    moment (ElementNotInteractable), which ``_wait`` retries."""
    element.click()
    return True


def _what_the_page_shows(drv: Any) -> str:
    """The frames' text and the console's errors, for a failure message."""
    from selenium.webdriver.common.by import By

    frames = [f.text[:400] for f in drv.find_elements(By.CSS_SELECTOR, "[data-testid=frame]")]
    console = [e["message"][:300] for e in drv.get_log("browser") if e["level"] == "SEVERE"]
    return f"frames: {frames}\nconsole errors: {console}"


@pytest.mark.slow  # starts its own Neo4j with the Browser (20-80 s on two shared cores)
def test_neo4j_browser_opens_the_guide_in_headless_chromium(tmp_path: Path) -> None:
    if java_available():
        pytest.skip(f"no managed Neo4j here: {java_available()}")
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.skip("needs chromium and chromedriver (apt-get install chromium chromium-driver)")
    selenium = pytest.importorskip("selenium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    del selenium
    server = ManagedNeo4j(tmp_path / "neo4j", browser=True)
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        st = server.start()
        assert st.browser is not None
        from neo4j import GraphDatabase

        with GraphDatabase.driver(str(st.uri), auth=("neo4j", server.password())) as drv:
            drv.execute_query(GUIDE_DATA)
        drv2 = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
        try:
            drv2.set_page_load_timeout(60)
            # the guide opens by itself after a login (browser.post_connect_cmd); a first login
            # on a cold machine can lose its click to the app's late rendering, so the page is
            # loaded afresh once, and a second miss fails with what the page showed
            misses: list[str] = []
            for _attempt in range(2):
                drv2.get(st.browser)
                if _log_in_and_see_the_guide(drv2, server.password()):
                    break
                misses.append(_what_the_page_shows(drv2))
            else:
                raise AssertionError("the scholarkg guide never opened:\n" + "\n---\n".join(misses))
            titles = [q.title for q in browser_query_files()]

            def missing_titles() -> list[str]:
                # the guide's DOM text (a snippet scrolled out of the card is not in .text,
                # which is only what is visible); polled, since the card renders late
                text = drv2.execute_script("return document.body.textContent") or ""
                return [t for t in titles if t not in text]

            with contextlib.suppress(AssertionError):
                _wait(lambda: not missing_titles(), "every saved query in the guide")
            assert missing_titles() == []
            guide = _wait(
                lambda: next(
                    f
                    for f in drv2.find_elements(By.CSS_SELECTOR, "[data-testid=frame]")
                    if GUIDE_TITLE in (f.get_attribute("textContent") or "")
                ),
                "the guide's frame",
            )
            drv2.execute_script("arguments[0].scrollIntoView(true);", guide)
            time.sleep(0.5)
            guide.screenshot(str(tmp_path / "guide.png"))
            if os.environ.get("SCHOLARKG_DOCS_SCREENSHOTS") == "1":
                shutil.copyfile(tmp_path / "guide.png", DOCS_IMG)
            # the next slide's query goes into the editor on a click
            _wait(lambda: _click(drv2.find_element(By.CSS_SELECTOR, "[data-testid=nextSlide]")),
                  "the next-slide button")  # fmt: skip
            first = query_body(browser_query_files()[0]).splitlines()[0]
            snippet = _wait(
                lambda: next(
                    el
                    for el in drv2.find_elements(By.CSS_SELECTOR, "pre.runnable")
                    if el.is_displayed() and first in el.text
                ),
                "the first saved query's snippet",
            )
            _wait(lambda: _click(snippet), "a click on the snippet")
            editor = drv2.find_element(By.CSS_SELECTOR, "[data-testid=activeEditor]")
            _wait(lambda: first.split()[0] in editor.text, "the snippet in the editor")
            # the style sheet: a Paper is drawn with its title
            box = drv2.find_element(By.CSS_SELECTOR, "[data-testid=activeEditor] textarea")
            box.send_keys(Keys.CONTROL, "a")
            box.send_keys(Keys.DELETE)
            box.send_keys("MATCH (p:Paper)-[r]->(a:Author) RETURN p, r, a")
            box.send_keys(Keys.CONTROL, Keys.ENTER)
            captions = _wait(
                lambda: " ".join(
                    t.text for t in drv2.find_elements(By.CSS_SELECTOR, "svg text")
                ).strip(),
                "the drawn graph",
            )
            assert "Attention" in captions and "Ashish" in captions, captions
            graph_frame = next(
                f
                for f in drv2.find_elements(By.CSS_SELECTOR, "[data-testid=frame]")
                if "MATCH (p:Paper)" in f.text
            )
            graph_frame.screenshot(str(tmp_path / "graph.png"))
            if os.environ.get("SCHOLARKG_DOCS_SCREENSHOTS") == "1":
                shutil.copyfile(tmp_path / "graph.png", DOCS_STYLE_IMG)
            # nothing left the machine: the app's calls to the internet (web fonts, analytics,
            # crash reports) were refused by the page's policy before any request was sent
            fetched = drv2.execute_script(
                "return performance.getEntriesByType('resource')"
                ".map(e => [e.name, e.transferSize, e.responseStatus])"
            )
            entries: list[dict[str, Any]] = drv2.get_log("browser")  # type: ignore[no-untyped-call]  # selenium's Chrome driver is not annotated
            log = [e["message"] for e in entries if e["level"] == "SEVERE"]
            refused = " ".join(m for m in log if "Content Security Policy" in m)
            for url, size, status in fetched:
                if not url.startswith(LOOPBACK):
                    assert (size, status) == (0, 0), url
                    assert url.split("/")[2] in refused, f"{url} not refused by the policy"
            unexpected = [
                m
                for m in log
                if "Content Security Policy" not in m
                and not re.search(r"\b(127\.0\.0\.1|localhost)\b", m)
            ]
            assert unexpected == [], unexpected
            _run_every_guide_query(drv2, box)
        finally:
            drv2.quit()
    finally:
        server.stop()
