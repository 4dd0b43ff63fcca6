"""``scholarkg explore`` in a real browser: headless Chromium (Debian's package) driven by
Selenium through Debian's chromedriver, against a live explorer on the embedded server.

It runs a typed query and counts the nodes Cytoscape drew, clicks a node on the canvas to
expand it, runs saved queries, opens a run report, checks the browser saw no errors, and
saves screenshots (``explorer-*.png`` in the test's tmp dir; kept by pytest for the last
runs). Without Chromium, chromedriver or selenium these tests skip and say which is
missing; ``.ci/run`` installs the first two, ``make test`` the third.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ._explorer import FLAGS, Client, listening_ips

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401

    HAVE_SELENIUM = True
except ImportError:  # pragma: no cover - depends on the installed extras
    HAVE_SELENIUM = False

_MISSING = [
    name
    for name, ok in (
        ("chromium (apt-get install chromium)", CHROMIUM),
        ("chromedriver (apt-get install chromium-driver)", CHROMEDRIVER),
        ("selenium (pip install -e '.[dev]')", HAVE_SELENIUM),
    )
    if not ok
]
pytestmark = [
    pytest.mark.skipif(
        bool(_MISSING), reason=f"browser tests need {', '.join(_MISSING)}: not installed"
    ),
    # headless Chromium's start and page loads, 14 s in all: make test's 5-minute budget; the
    # explorer's API and CLI tests stay in it; these run in make test-marked (CI runs both)
    pytest.mark.slow,
]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    drv.set_page_load_timeout(60)
    try:
        yield drv
    finally:
        drv.quit()


def wait_for(check: Callable[[], Any], what: str, timeout: float = 45.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def drawn(drv: Any) -> tuple[int, int]:
    return tuple(
        drv.execute_script(
            "const cy = window.scholarkgExplorer.cy; return [cy.nodes().length, cy.edges().length]"
        )
    )


def drawn_labels(drv: Any) -> set[str]:
    script = "return window.scholarkgExplorer.cy.nodes().map(n => n.data('node').labels[0])"
    return set(drv.execute_script(script))


def open_page(drv: Any, client: Client) -> None:
    drv.get(client.server.url)
    wait_for(lambda: drv.execute_script("return document.body.dataset.ready"), "the page to load")


def click_node(drv: Any, ref: str) -> None:
    """A real mouse click on the canvas where Cytoscape drew node ``ref``, once the layout
    has stopped moving it (on a loaded machine the layout still animated when the position
    was read, and the click landed beside the node)."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    def position() -> Any:
        return drv.execute_script(
            "return window.scholarkgExplorer.cy.getElementById('n' + arguments[0])"
            ".renderedPosition()",
            ref,
        )

    def settled() -> Any:
        before = position()
        time.sleep(0.3)
        after = position()
        return after if after == before else None

    pos = wait_for(settled, f"node {ref} to stop moving")
    graph = drv.find_element(By.ID, "graph")
    rect = graph.rect
    ActionChains(drv).move_to_element_with_offset(
        graph, int(pos["x"] - rect["width"] / 2), int(pos["y"] - rect["height"] / 2)
    ).click().perform()


def severe_console_errors(drv: Any) -> list[str]:
    return [e["message"] for e in drv.get_log("browser") if e["level"] == "SEVERE"]


def test_query_expand_and_saved_queries_in_chromium(
    driver: Any, client: Client, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    open_page(driver, client)
    assert driver.find_element(By.ID, "mode").text == "read-only"

    # 1. a query typed into the editor: the view draws exactly the result's nodes
    query = "MATCH (p:Paper)-[c:CITES]->(q:Paper) RETURN p, c, q LIMIT 12"
    _, expected = client.json("/api/query", {"query": query})
    editor = driver.find_element(By.ID, "query")
    editor.clear()
    editor.send_keys(query)
    driver.find_element(By.ID, "run").click()
    wait_for(lambda: "row(s)" in driver.find_element(By.ID, "status").text, "the query")
    assert drawn(driver) == (len(expected["nodes"]), len(expected["relationships"]))
    assert len(expected["nodes"]) >= 2
    driver.save_screenshot(str(tmp_path / "explorer-query.png"))

    # 1b. a saved query that needs a paper, with none selected: it says so instead of
    # running an example id that names no node (and showing 0 rows without a word)
    driver.find_element(By.CSS_SELECTOR, '[data-saved="co_citation"]').click()
    status = wait_for(
        lambda: driver.find_element(By.CSS_SELECTOR, "#status.error").text, "the message"
    )
    assert "needs a :Paper (paperId)" in status and "click one" in status
    assert "$paperId" in driver.find_element(By.ID, "query").get_attribute("value")

    # 2. click a paper: its card shows, and its neighbours (authors, code, ...) are added
    paper = expected["nodes"][0]
    _, around = client.json("/api/expand", {"ref": paper["ref"]})
    shown = {n["ref"] for n in expected["nodes"]}
    want = len(shown | {n["ref"] for n in around["nodes"]})
    assert want > len(shown), "the clicked paper should bring new neighbours"
    click_node(driver, paper["ref"])
    wait_for(lambda: drawn(driver)[0] == want, f"{want} nodes after expanding")
    card = driver.find_element(By.ID, "card")
    assert card.is_displayed() and paper["properties"]["id"] in card.text
    driver.save_screenshot(str(tmp_path / "explorer-expanded.png"))

    # 3. a saved query, one click away, takes $paperId from the selected paper
    driver.find_element(By.CSS_SELECTOR, '[data-saved="paper_citation_neighbourhood"]').click()
    wait_for(lambda: "row(s)" in driver.find_element(By.ID, "status").text, "the saved query")
    params = driver.find_element(By.ID, "params").get_attribute("value")
    assert paper["properties"]["id"] in params
    _, saved = client.json(
        "/api/query",
        {
            "query": driver.find_element(By.ID, "query").get_attribute("value"),
            "params": {"paperId": paper["properties"]["id"], "limit": 200},
        },
    )
    assert drawn(driver)[0] == len(saved["nodes"]) >= 2

    # 4. a leaderboard, then its saved graph query
    driver.find_element(By.CSS_SELECTOR, '[data-panel="leaderboards"]').click()
    driver.find_elements(By.CSS_SELECTOR, "[data-leaderboard]")[0].click()
    wait_for(lambda: driver.find_element(By.ID, "view-details").is_displayed(), "the board")
    assert "is better" in driver.find_element(By.ID, "details").text
    driver.find_element(By.XPATH, '//button[text()="Show in the graph"]').click()
    wait_for(lambda: "Leaderboard" in drawn_labels(driver), "the leaderboard graph")
    assert {"Leaderboard", "Result", "Paper"} <= drawn_labels(driver)
    driver.save_screenshot(str(tmp_path / "explorer-leaderboard.png"))

    # 5. the schema panel and a run's report
    driver.find_element(By.CSS_SELECTOR, '[data-panel="schema"]').click()
    assert ":Paper" in driver.find_element(By.ID, "panel-schema").text
    driver.find_element(By.CSS_SELECTOR, '[data-panel="runs"]').click()
    # the Runs tab names what ran (the ranker, and that it is ours), not only the task
    assert "toy/explore · hybrid (ours)" in driver.find_element(By.ID, "panel-runs").text
    driver.find_element(By.CSS_SELECTOR, "[data-run]").click()
    frame = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#details iframe"), "report")
    driver.switch_to.frame(frame[0])
    wait_for(lambda: "scholarkg report" in driver.find_element(By.TAG_NAME, "body").text, "report")
    driver.switch_to.default_content()
    driver.save_screenshot(str(tmp_path / "explorer-run.png"))

    assert severe_console_errors(driver) == []
    for name in ("query", "expanded", "leaderboard", "run"):
        assert (tmp_path / f"explorer-{name}.png").stat().st_size > 10_000


def test_a_write_is_refused_in_the_page(driver: Any, client: Client) -> None:
    from selenium.webdriver.common.by import By

    open_page(driver, client)
    driver.execute_script(
        "return window.scholarkgExplorer.runQuery(arguments[0], {})", "CREATE (:Paper {id: 'x'})"
    )
    status = wait_for(
        lambda: driver.find_element(By.CSS_SELECTOR, "#status.error").text, "the error"
    )
    assert "read-only" in status


def test_the_page_without_its_token_is_refused(driver: Any, client: Client) -> None:
    from selenium.webdriver.common.by import By

    assert listening_ips(client.server.port) == {"127.0.0.1"}  # nothing on other interfaces

    driver.get(f"http://127.0.0.1:{client.server.port}/")
    body = driver.find_element(By.TAG_NAME, "body").text
    assert "forbidden" in body and "token" in body
    assert not driver.find_elements(By.ID, "graph")


def test_table_shows_nodes_as_chips(driver: Any, client: Client) -> None:
    from selenium.webdriver.common.by import By

    open_page(driver, client)
    driver.execute_script(
        "return window.scholarkgExplorer.runQuery(arguments[0], {})",
        "MATCH (p:Paper) WITH p ORDER BY p.id LIMIT 3 RETURN collect(p) AS ps, count(p) AS n",
    )
    wait_for(lambda: "row(s)" in driver.find_element(By.ID, "status").text, "the query")
    driver.find_element(By.CSS_SELECTOR, '[data-view="table"]').click()
    chips = driver.find_elements(By.CSS_SELECTOR, "#table td .chip")
    assert len(chips) == 3 and all(c.text.startswith("(:Paper ") for c in chips)
    chips[0].click()  # a chip shows its node in the graph, selected, with its card
    assert driver.find_element(By.ID, "card").is_displayed()
    assert drawn(driver) == (3, 0)
