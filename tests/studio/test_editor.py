"""The editor's words and messages (issue 40.12): the words it colours come from the form
registry, counts are singular where they are one, the structure tree names a place held by
a variable as a place, and a game whose every random game breaks gets its error as a
positioned finding, not as the lint's failure."""

from __future__ import annotations

import pytest

import recycle

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

from recycle.studio import make_app

from .helpers import ROOT, TOKEN, game_folder

OWNER = {"X-Token": TOKEN}
PILES = """(game
 (declare (LEFT, RIGHT) 'PILES)
 (setup
  (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C, D)))))
 (do ((shuffle (game iloc STOCK))
      (all 'PILES 'S (move (top (game iloc STOCK)) (top (game vloc 'S))))))
 (stage player
  (end (== (size (game iloc STOCK)) 0))
  (choice (
   (any 'PILES 'S (move (top (game iloc STOCK)) (top ((current player) vloc 'S)))))))
 (scoring max (size ((current player) vloc LEFT))))
"""
# War dealing 27 cards to each of two players from a pack of 52: every game breaks in its setup
BROKEN_WAR = (ROOT / "games" / "war.rcy").read_text().replace("(repeat 26", "(repeat 27", 1)


@pytest.fixture
def client(tmp_path):
    app = make_app(game_folder(tmp_path), TOKEN)
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c
    app.studio.jobs.cancel_all()


def test_the_editors_words_come_from_the_form_registry(client):
    from recycle.lang.forms.registry import known_words

    w = client.get("/api/words", headers=OWNER).json()
    assert {"scoremin", "scoremax", "using", "game", "choice"} <= set(w["keywords"])
    assert w["locations"] == ["hloc", "iloc", "mem", "oloc", "points", "sto", "str", "vloc"]
    assert set(w["keywords"]) | set(w["locations"]) == known_words()
    js = client.get("/static/studio.js", headers=OWNER).text
    assert '"scoring", "max"' not in js and "/api/words" in js  # no list kept by hand in the page


def test_the_structure_tree_names_a_place_held_by_a_variable(client):
    outline = client.post("/api/tree", headers=OWNER, json={"path": "piles.rcy", "text": PILES}).json()["outline"]
    assert "│     └─ move top STOCK → top vloc 'S" in outline  # before: "→ top 'S", the variable itself
    assert "│           └─ move top STOCK → top vloc 'S(current)" in outline
    assert "└─ scoring: max size LEFT(current) wins" in outline


def test_counts_of_one_are_singular():
    from recycle.errors import RecycleCompileError, RecycleCompileErrors
    from recycle.study.simlint import simulation_lint

    one = RecycleCompileErrors([RecycleCompileError("a slip")], more=True)
    assert one.format().endswith("\n1 error (the first 1; there may be more)")
    found = simulation_lint(recycle.loads(BROKEN_WAR, "war.rcy"), games=1)["findings"]
    assert [f["message"] for f in found] == [
        "1 of 1 random game stopped with an error: move from the empty location STOCK (with 2 players)"
    ]


def test_a_lint_whose_every_game_breaks_positions_the_error(client):
    from recycle.study.simlint import simulation_lint

    out = simulation_lint(recycle.loads(BROKEN_WAR, "war.rcy"), games=5)  # before: the error raised
    assert out["games"] == 5
    # that error alone: what never happened after it (a location never filled...) says nothing more
    assert [(f["line"], f["message"]) for f in out["findings"]] == [
        (35, "5 of 5 random games stopped with an error: move from the empty location STOCK (with 2 players)")
    ]
    job = client.post(
        "/api/run", headers=OWNER, json={"path": "war.rcy", "text": BROKEN_WAR, "kind": "simlint", "n": 5}
    ).json()["job"]
    while (d := client.get(f"/api/jobs/{job}", headers=OWNER).json())["status"] == "running":
        pass
    assert d["status"] == "done" and d["error"] is None and d["result"]["findings"][0]["line"] == 35
