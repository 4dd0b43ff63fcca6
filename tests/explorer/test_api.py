"""The explorer's HTTP API against a live server on the real embedded FalkorDB.

Security first (token, Host, Origin, JSON-only POSTs, loopback only), then what each panel
gets: query results with their graph payload, limits, schema, saved queries,
leaderboards, runs and their reports.
"""

from __future__ import annotations

import socket

import psutil
import pytest

from scholarkg.explorer.saved import saved_queries
from scholarkg.store.falkordb.store import FalkorDBStore

from ._explorer import LEADERBOARDS, PAPERS, Client, listening_ips

GETS = [
    "/",
    "/static/app.js",
    "/static/vendor/cytoscape.min.js",
    "/api/info",
    "/api/schema",
    "/api/saved",
    "/api/leaderboards",
    "/api/runs",
    "/api/report?id=x",
    "/nowhere",
]


@pytest.mark.parametrize("path", GETS)
def test_without_the_token_every_get_is_refused(client: Client, path: str) -> None:
    status, _, body = client.request(path, token=None)
    assert status == 403
    assert b"token" in body
    assert b"cytoscape" not in body and b"<html" not in body


@pytest.mark.parametrize("path", ["/api/query", "/api/expand"])
def test_without_the_token_posts_are_refused(client: Client, path: str) -> None:
    status, _ = client.json(path, {"query": "RETURN 1"}, token=None)
    assert status == 403
    status, _ = client.json(path, {"query": "RETURN 1"}, token="wrong-" + client.server.token)
    assert status == 403


def test_token_works_in_the_url_or_header(client: Client) -> None:
    status, _, body = client.request(f"/?token={client.server.token}", token=None)
    assert status == 200 and b"scholarkg explore" in body
    assert client.server.token.encode() in body  # the page sends it on its API calls
    status, info = client.json("/api/info")
    assert status == 200
    assert info["backend"] == "embedded" and info["allow_writes"] is False
    assert info["row_limit"] == 50 and info["timeout_ms"] == 2_000


def test_url_has_a_long_random_token(client: Client) -> None:
    url = client.server.url
    assert url.startswith(f"http://127.0.0.1:{client.server.port}/?token=")
    assert len(client.server.token) >= 40


def test_foreign_host_header_is_refused(client: Client) -> None:
    """DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends its own Host."""
    port = client.server.port
    for host in (f"evil.example:{port}", "127.0.0.1", f"127.0.0.1:{port + 1}"):
        status, body = client.json("/api/info", headers={"Host": host})
        assert status == 403 and "Host" in body["error"], host
    status, _ = client.json("/api/info", headers={"Host": f"localhost:{port}"})
    assert status == 200


def test_cross_origin_and_non_json_posts_are_refused(client: Client) -> None:
    status, _ = client.json(
        "/api/query", {"query": "RETURN 1"}, headers={"Origin": "http://evil.example"}
    )
    assert status == 403
    status, _, _ = client.request(
        "/api/query",
        raw=b"query=RETURN+1",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert status == 415


def test_bad_lengths_are_refused_before_reading(client: Client) -> None:
    import http.client

    for length in ("-5", "many", str(2 << 20)):
        conn = http.client.HTTPConnection("127.0.0.1", client.server.port, timeout=10)
        conn.putrequest("POST", "/api/query", skip_accept_encoding=True)
        conn.putheader("X-Scholarkg-Token", client.server.token)
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", length)
        conn.endheaders()
        assert conn.getresponse().status in (400, 413), length
        conn.close()


def test_responses_carry_security_headers(client: Client) -> None:
    _, headers, _ = client.request("/")
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cache-Control"] == "no-store"


def test_listens_on_loopback_only(client: Client) -> None:
    port = client.server.port
    assert listening_ips(port) == {"127.0.0.1"}
    # and nothing answers on this machine's other addresses
    for addr in {a.address for nics in psutil.net_if_addrs().values() for a in nics}:
        if addr.startswith("127.") or ":" in addr or not addr[0].isdigit():
            continue
        with socket.socket() as s:
            s.settimeout(1)
            assert s.connect_ex((addr, port)) != 0, addr


def test_query_returns_rows_and_a_graph(client: Client) -> None:
    status, res = client.json(
        "/api/query",
        {
            "query": "MATCH (p:Paper)-[c:CITES]->(q:Paper) WHERE p.id = $id RETURN p, c, q",
            "params": {"id": "arxiv:none"},
        },
    )
    assert status == 200 and res["rows"] == [] and res["nodes"] == []
    status, res = client.json(
        "/api/query", {"query": "MATCH (p:Paper)-[c:CITES]->(q:Paper) RETURN p, c, q LIMIT 5"}
    )
    assert status == 200
    assert res["columns"] == ["p", "c", "q"] and len(res["rows"]) == 5
    refs = {n["ref"] for n in res["nodes"]}
    assert all(n["labels"] == ["Paper"] for n in res["nodes"])
    assert all(r["start"] in refs and r["end"] in refs for r in res["relationships"])
    assert len(res["relationships"]) == 5


def test_read_only_refuses_a_write(client: Client, gstore: FalkorDBStore) -> None:
    before = gstore.counts().total_nodes
    status, res = client.json("/api/query", {"query": "CREATE (:Paper {id: 'sneaky'})"})
    assert status == 400 and "read-only" in res["error"]
    status, res = client.json("/api/query", {"query": "MATCH (n) DETACH DELETE n"})
    assert status == 400
    assert gstore.counts().total_nodes == before


def test_a_query_that_is_no_text_says_so(client: Client) -> None:
    status, res = client.json("/api/query", {"query": 5})
    assert status == 400 and "must be Cypher text, got int" in res["error"]
    status, res = client.json("/api/query", {"query": "  "})
    assert status == 400 and "the query is empty" in res["error"]


def test_timeout_and_row_limit(client: Client) -> None:
    status, res = client.json(
        "/api/query",
        {"query": "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(*)"},
    )
    assert status == 400 and res["error"].startswith("stopped at the explorer's time limit")
    status, res = client.json("/api/query", {"query": "UNWIND range(1, 200) AS x RETURN x"})
    assert status == 200 and len(res["rows"]) == 50 and res["truncated"] is True


def test_bad_requests_get_one_line_errors(client: Client) -> None:
    assert client.json("/api/query", {"query": ""})[0] == 400
    assert client.json("/api/query", {"query": "RETURN $x", "params": [1]})[0] == 400
    # names are pasted into FalkorDB's CYPHER header by its client: only identifiers pass
    status, res = client.json(
        "/api/query", {"query": "RETURN 1", "params": {"x=1 MATCH (n) DETACH DELETE n //": 1}}
    )
    assert status == 400 and "parameter name" in res["error"]
    status, res = client.json("/api/query", {"query": "RETURN $m", "params": {"m": {"a`b": 1}}})
    assert status == 400 and "parameter" in res["error"]
    status, res = client.json(
        "/api/query", {"query": "RETURN $m.`k-1` AS v", "params": {"m": {"k-1": "it's"}}}
    )
    assert status == 200 and res["rows"] == [["it's"]]
    status, res = client.json("/api/query", {"query": "MATCH (n RETURN n"})
    assert status == 400 and "FalkorDB rejected the query" in res["error"]
    assert client.json("/api/nothing", {})[0] == 404


def test_expand(client: Client) -> None:
    _, res = client.json("/api/query", {"query": "MATCH (p:Paper) RETURN p LIMIT 1"})
    ref = res["nodes"][0]["ref"]
    status, around = client.json("/api/expand", {"ref": ref})
    assert status == 200
    assert ref in {n["ref"] for n in around["nodes"]}
    assert 1 <= len(around["relationships"]) <= 25
    assert all(ref in (r["start"], r["end"]) for r in around["relationships"])


def test_schema_panel(client: Client, gstore: FalkorDBStore) -> None:
    status, schema = client.json("/api/schema")
    assert status == 200
    labels = {x["name"]: x["count"] for x in schema["labels"]}
    assert labels["Paper"] == PAPERS and labels["Leaderboard"] == LEADERBOARDS
    assert labels == gstore.counts().nodes
    rels = {x["name"]: x["count"] for x in schema["relationships"]}
    assert rels["CITES"] > 0 and "HAS_ENTRY" in rels
    assert any(i["label"] == "Paper" and i["properties"] == ["id"] for i in schema["indexes"])


def test_saved_queries_are_listed(client: Client) -> None:
    status, saved = client.json("/api/saved")
    assert status == 200
    assert [q["name"] for q in saved] == [q.name for q in saved_queries()]
    co = next(q for q in saved if q["name"] == "co_citation")
    assert co["params"] == {"paperId": "doi:10.1000/example", "limit": 25}
    assert "$paperId" in co["text"]
    # how the Neo4j Browser guide fills paperId from the graph it opens on
    assert co["examples"]["paperId"].startswith("COLLECT {")


def test_saved_query_runs(client: Client) -> None:
    _, boards = client.json("/api/leaderboards")
    saved = {q["name"]: q for q in client.json("/api/saved")[1]}
    status, res = client.json(
        "/api/query",
        {"query": saved["leaderboard_graph"]["text"], "params": {"leaderboardId": boards[0]["id"]}},
    )
    assert status == 200
    labels = {lb for n in res["nodes"] for lb in n["labels"]}
    assert {"Leaderboard", "Result", "Paper"} <= labels


def test_leaderboards(client: Client) -> None:
    status, boards = client.json("/api/leaderboards")
    assert status == 200 and len(boards) == LEADERBOARDS
    status, one = client.json(f"/api/leaderboard?id={boards[0]['id']}")
    assert status == 200
    assert one["leaderboard"]["id"] == boards[0]["id"]
    assert one["direction"] in ("higher", "lower", "unknown")
    assert one["results"] or one["gold"]
    ranks = [r["rank"] for r in one["results"] if r["rank"] is not None]
    assert ranks == sorted(ranks)
    assert client.json("/api/leaderboard?id=lb:nope")[0] == 400


def test_runs_and_their_report(client: Client) -> None:
    status, runs = client.json("/api/runs")
    assert status == 200 and len(runs) == 1
    run = runs[0]
    assert run["task"] == "toy/explore" and run["instances"] == 20
    # the Runs tab names what ran, not only the task and the time
    assert (run["answered_by"], run["answer_kind"], run["role"]) == ("hybrid", "ranker", "ours")
    assert (run["dataset"], run["graph"]) == ("toy-set", "toy")
    status, record = client.json(f"/api/run?id={run['id']}")
    assert status == 200 and record["metrics"] == {"ndcg@10": 0.4286}
    assert "per_instance" not in record
    status, headers, body = client.request(f"/api/report?id={run['id']}")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "sandbox" in headers["Content-Security-Policy"]
    assert b"scholarkg report" in body and run["id"].encode() in body
    # only run ids from the registry: never a path (RunRegistry.load also opens files)
    assert client.json("/api/run?id=../../etc/passwd")[0] == 400
    assert client.request(f"/api/report?id={run['id'][:10]}")[0] == 400


def test_allow_writes_lets_a_write_through(write_client: Client) -> None:
    status, info = write_client.json("/api/info")
    assert status == 200 and info["allow_writes"] is True
    status, res = write_client.json(
        "/api/query", {"query": "CREATE (p:Paper {id: $id}) RETURN p", "params": {"id": "w1"}}
    )
    assert status == 200, res
    assert res["nodes"][0]["properties"] == {"id": "w1"}
    _, res = write_client.json("/api/query", {"query": "MATCH (p:Paper) RETURN count(p) AS n"})
    assert res["rows"] == [[1]]
