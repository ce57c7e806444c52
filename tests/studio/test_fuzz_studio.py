"""tools/fuzz.py --studio-requests, briefly: hostile requests to every endpoint of the studio
answer a clean 2xx/4xx in JSON and write nothing outside the served folder (issue 39); and
the faults it found, each on its own."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

from recycle.studio import make_app

from ..helpers import fuzz_tool
from .helpers import TOKEN, game_folder

OWNER = {"X-Token": TOKEN}


def test_fuzz_studio_requests_finds_nothing(tmp_path, capsys):
    assert fuzz_tool().fuzz_studio_requests(250, 0, tmp_path / "out") == 0, capsys.readouterr().out
    assert "250 studio requests (seed 0)" in capsys.readouterr().out


def test_hostile_requests_the_fuzzer_found_get_a_clear_4xx(tmp_path):
    app = make_app(game_folder(tmp_path), TOKEN)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        r = c.put("/api/file", headers=OWNER, json={"path": "x.rcy", "text": None})  # before: a 500
        assert r.status_code == 400 and r.json() == {"error": "text must be a string"}
        r = c.post(
            "/api/tree", headers={**OWNER, "Content-Type": "application/json"}, content=b'{"path": "\\udcff.rcy"}'
        )  # a lone surrogate: before, a 500
        assert r.status_code == 400 and r.json() == {"error": "the file name is not UTF-8 text"}
        r = c.post(
            "/api/check",
            headers={**OWNER, "Content-Type": "application/json"},
            content=b'{"path": "\\udcff.rcy", "text": "(game)"}',
        )  # the text given: before, a 500
        assert r.status_code == 400 and r.json() == {"error": "the file name is not UTF-8 text"}
        r = c.get("/api/nothing", headers=OWNER)  # before: "Not Found" in plain text
        assert r.status_code == 404 and r.json() == {"error": "no such page"}
        r = c.post("/api/run", headers=OWNER, json={"path": "war.rcy", "n": None, "seed": None, "seconds": None})
        assert r.status_code == 200  # null is "not given": before, a run that failed with a TypeError
        jid = r.json()["job"]
        while (d := c.get(f"/api/jobs/{jid}", headers=OWNER).json())["status"] == "running":
            pass
        assert d["status"] == "done" and d["result"]["stats"]["games"] == 500
    app.studio.jobs.cancel_all()
