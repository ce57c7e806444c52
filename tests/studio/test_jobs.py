"""The studio's runs: each in a process killed on Cancel or at its hard time limit, so a
look-ahead player deep in one decision cannot hold a slot (issue 39.8); the page's own lint
in a lane of its own, a new lint cancelling the one before, so that it never blocks the
person's runs (issue 40.3)."""

from __future__ import annotations

import shutil
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

from recycle.studio import make_app
from recycle.studio.jobs import MAX_RUNNING

from .helpers import ROOT, TOKEN, game_folder

OWNER = {"X-Token": TOKEN}
# one decision of this player at Hearts takes minutes: a run of it ends only when killed
DEEP = {"path": "hearts.rcy", "kind": "simulate", "n": 10, "players": "ismcts:100000"}


@pytest.fixture
def studio(tmp_path):
    folder = game_folder(tmp_path)
    shutil.copy(ROOT / "games" / "hearts.rcy", folder / "hearts.rcy")
    app = make_app(folder, TOKEN)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        yield folder, client, app.studio
    app.studio.jobs.cancel_all()


def _start(client, body) -> str:
    r = client.post("/api/run", headers=OWNER, json=body)
    assert r.status_code == 200, r.text
    return r.json()["job"]


def _ended(client, job: str, within: float = 60.0) -> dict:
    """The run's last state once it is no longer running (a run still going after ``within``
    seconds — one that ignores Cancel or its limit — fails the test rather than hang it)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        d = client.get(f"/api/jobs/{job}", headers=OWNER).json()
        if d["status"] != "running":
            return d
        time.sleep(0.05)
    raise AssertionError(f"run {job} still running after {within} s")


def test_a_cancelled_lookahead_run_stops_and_frees_its_slot(studio):
    _, client, st = studio
    jobs = [_start(client, DEEP) for _ in range(MAX_RUNNING)]
    time.sleep(2)  # both deep in their first decisions by now
    assert client.post("/api/run", headers=OWNER, json=DEEP).status_code == 429
    for job in jobs:
        assert client.post(f"/api/jobs/{job}/cancel", headers=OWNER).status_code == 200
    for job in jobs:
        d = _ended(client, job)
        assert d["status"] == "cancelled" and d["done"] == 0
        assert st.jobs.get(job).process.poll() is not None  # the process is gone, not left running
    # the slots are free again: a run and the editor's lint both start and finish
    done = _ended(client, _start(client, {"path": "war.rcy", "n": 20}))
    assert done["status"] == "done" and done["result"]["stats"]["games"] == 20


def test_a_lookahead_run_is_killed_at_its_hard_limit(studio):
    _, client, st = studio
    st.jobs.grace = 1.0  # the run's own 1 s, then 1 s more
    d = _ended(client, _start(client, {**DEEP, "seconds": 1}))
    assert d["status"] == "failed" and d["error"].startswith("stopped at the time limit (2 s)"), d
    assert st.jobs.running() == []


def test_the_pages_lint_never_blocks_a_persons_run(studio):
    _, client, _ = studio
    lint = {"path": "hearts.rcy", "kind": "simlint", "n": 2000}
    first = _start(client, lint)  # the page opens on a game
    second = _start(client, lint)  # and the person chooses another at once
    runs = [_start(client, {"path": "crazy-eights.rcy", "n": 100_000}) for _ in range(MAX_RUNNING)]
    assert _ended(client, first)["status"] == "cancelled"  # a new lint cancels the one before
    # the person's lane is full: a further run is refused, with its reason, but the lint is not
    r = client.post("/api/run", headers=OWNER, json={"path": "war.rcy", "n": 10})
    assert r.status_code == 429 and r.json()["error"] == "2 runs are going already: wait for one or cancel it"
    third = _start(client, {"path": "war.rcy", "kind": "simlint", "n": 30})
    assert _ended(client, second)["status"] == "cancelled"
    d = _ended(client, third)
    assert d["status"] == "done" and d["result"]["games"] == 30
    for job in runs:
        client.post(f"/api/jobs/{job}/cancel", headers=OWNER)
        assert _ended(client, job)["status"] == "cancelled"
