"""The studio's Study view on a served studio: a game's page is built in a worker process and
served from memory with a policy that runs no script; the ladder and balance run with small
budgets; what a request asks for is checked before a process starts."""

from __future__ import annotations

import time

import pytest

from .helpers import TOKEN

H = {"X-Token": TOKEN}


def wait(client, job: str, seconds: float = 120) -> dict:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        d = client.get(f"/api/jobs/{job}", headers=H).json()
        if d["status"] != "running":
            return d
        time.sleep(0.2)
    raise AssertionError(f"run {job} still going after {seconds} s")


def start(client, **body) -> str:
    r = client.post("/api/run", headers=H, json={"path": "crazy-eights.rcy", **body})
    assert r.status_code == 200, r.text
    return r.json()["job"]


@pytest.mark.slow  # (3-4 s: the fast suite must stay under 5 minutes on 2 cores)
def test_a_page_is_built_and_served_from_memory(served):
    from recycle.studio.study import PAGE_CSP

    _, _, client, _ = served
    d = wait(client, start(client, kind="page", n=2, players="ismcts:5", seconds=60))
    assert d["status"] == "done", d
    files = d["result"]["files"]  # the names only: the files are served one by one
    assert {"index.html", "page.json", "branching.png"} <= set(files) and isinstance(files, list)
    # the same page as `recycle page`: its later sections too, with small budgets
    assert {"ladder.png", "luck.png", "suspense.png", "heuristics.json"} <= set(files), files
    lines = d["result"]["lines"]
    assert lines[0] == "page of crazy-eights: 2 random games, 2 games of ismcts:5", lines
    assert lines[1].startswith("skill ladder: 3 rungs (random, ismcts:10, ismcts:20), skill depth "), lines
    assert lines[2].startswith("luck and skill (2 games): "), lines
    assert lines[4].startswith("heuristics: meaningful moves "), lines
    # random games, look-ahead games, traced games, ladder games (3 pairs of rungs x 3 seat rotations)
    assert d["done"] == d["total"] == 2 + 2 + 2 + 3 * 3, d
    html = client.get(f"/api/jobs/{d['id']}/page/index.html", headers=H)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert html.headers.get_list("content-security-policy") == [PAGE_CSP]  # its own, alone
    assert "crazy-eights" in html.text and "<script" not in html.text
    png = client.get(f"/api/jobs/{d['id']}/page/branching.png", headers=H)
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    # opened with ?token=, the page's answer sets the cookie its relative links are served with
    opened = client.get(f"/api/jobs/{d['id']}/page/index.html?token={TOKEN}")
    assert opened.cookies.get("recycle_studio") == TOKEN
    for name, status in (("nothing.png", 404), ("..%2Fcrazy-eights.rcy", 404), ("index.py", 404)):
        assert client.get(f"/api/jobs/{d['id']}/page/{name}", headers=H).status_code == status, name
    client.cookies.clear()
    assert client.get(f"/api/jobs/{d['id']}/page/index.html").status_code == 401
    assert client.get("/api/jobs/999/page/index.html", headers=H).status_code == 404


def test_the_ladder_and_balance_run_with_small_budgets(served):
    _, _, client, _ = served
    lad = wait(client, start(client, kind="ladder", n=2, players="random,ismcts:4", doublings=1, seconds=60))
    assert lad["status"] == "done", lad
    assert lad["result"]["lines"][0].startswith("skill ladder of crazy-eights") and lad["result"]["ladder"][
        "rungs"
    ] == [
        "random",
        "ismcts:4",
        "ismcts:8",
    ]
    bal = wait(
        client,
        start(
            client,
            kind="balance",
            n=4,
            vary=["PENALTY.EIGHT=10..50:10"],
            target=["score_gap=0..20"],
            iterations=3,
            final_games=4,
            seconds=60,
        ),
    )
    assert bal["status"] == "done", bal
    assert bal["result"]["balance"]["evaluations"] == 3 and bal["result"]["lines"][0].startswith("crazy-eights: NTBEA")
    assert bal["result"]["balance"]["original"]["values"] == {"PENALTY.EIGHT": 50}


@pytest.mark.parametrize(
    "body, message",
    [
        (
            {"kind": "balance", "vary": ["GOAL=1..3"], "target": ["ties=0"]},
            "'GOAL' is not declared in crazy-eights; it can vary: NUMP, PENALTY.A,",
        ),
        ({"kind": "balance", "vary": ["NUMP=2..4"], "target": ["luck=1"]}, "unknown target 'luck'"),
        ({"kind": "balance", "vary": "NUMP=2..4", "target": ["ties=0"]}, "vary must be a list"),
        ({"kind": "balance", "vary": ["NUMP=2..4"], "target": ["ties=0"], "iterations": 10_000}, "iterations must be"),
        ({"kind": "page", "players": "human"}, "a run has computer players only"),
        ({"kind": "page", "players": "nobody"}, "players: unknown player 'nobody'"),
        ({"kind": "page", "n": 5000}, "n is at most 200 here"),
        ({"kind": "ladder", "doublings": 9}, "doublings must be an integer from 1 to 4"),
        ({"kind": "ladder", "players": "random"}, "--players"),
    ],
)
def test_a_bad_study_request_is_refused_before_a_process_starts(served, body, message):
    _, _, client, studio = served
    r = client.post("/api/run", headers=H, json={"path": "crazy-eights.rcy", "n": 2, **body})
    assert r.status_code == 400 and message in r.json()["error"], r.text
    assert not studio.jobs.running()
