"""analyze's traced games and evolve's trial and traced games stepped natively (issue 42):
the same analysis and the same evolution as the reference interpreter's, number for number,
and the text and JSON say native code played (recycle/study/trace_native.py)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.errors import RecycleRuntimeError
from recycle.native import available
from recycle.study.analysis import analyze, trace_game

from ..conftest import GAMES, tiny

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

# a stage nested in a stage (its turns counted at two depths)
NESTED = """(stage player (end (== (game sto T) 6))
              (do ((inc (game sto T))))
              (stage player (end (== (game sto U) 2))
                (choice ((inc (game sto U)) (inc (game sto U)))))
              (do ((set (game sto U) 0))))"""
# a trick winner leading again: the same player, a new entry of the inner stage
LEADS_AGAIN = """(stage player (end (== (game sto T) 3))
                   (stage player (end (== (game sto U) 2))
                     (choice ((inc (game sto U)) (inc (game sto U)))))
                   (do ((set (game sto U) 0) (inc (game sto T)) (cycle next current))))"""
# a scoring that cannot be evaluated until every hand holds a card (the max of an empty hand)
EMPTY_UNTIL_LATE = """(game
 (setup (create players 3)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((set (game points P) (((RANK : A) 1) ((RANK : B) 2) ((RANK : C) 3)))
      (shuffle (game iloc STOCK))))
 (stage player (end (== (size (game iloc STOCK)) 0))
   (choice ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
            (move (bottom (game iloc STOCK)) (top ((current player) iloc HAND))))))
 (scoring max (scoremax ((current player) iloc HAND) using (game points P))))"""


def _game(name):
    if name == "nested":
        return tiny(NESTED, players=2)
    if name == "leads-again":
        return tiny(LEADS_AGAIN, players=3)
    if name == "empty-until-late":
        return recycle.loads(EMPTY_UNTIL_LATE, "late.rcy")
    return recycle.load(GAMES / f"{name}.rcy")


def _without_engine(d: dict) -> dict:
    out = {k: v for k, v in d.items() if k not in ("seconds", "engine")}
    out["games_detail"] = [{k: v for k, v in g.items() if k != "engine"} for g in d["games_detail"]]
    return out


@pytest.mark.parametrize(
    "name,n",
    [
        ("schwimmen", 12),
        ("hearts", 4),
        ("go-fish", 8),
        ("crazy-eights", 8),
        ("nested", 3),
        ("leads-again", 3),
        ("empty-until-late", 10),
    ],
)
def test_analyze_is_the_same_analysis_natively(name, n):
    g = _game(name)
    native = analyze(g, n=n, seed=4).to_dict()
    reference = analyze(g, n=n, seed=4, engine="reference").to_dict()
    assert (native["engine"], reference["engine"]) == ("native", "reference")
    assert {x["engine"] for x in native["games_detail"]} == {"native"}
    assert json.dumps(_without_engine(native), sort_keys=True) == json.dumps(_without_engine(reference), sort_keys=True)


@pytest.mark.parametrize("name,n", [("schwimmen", 6), ("go-fish", 2), ("leads-again", 2)])
def test_win_probability_values_are_the_same_natively(name, n):
    """--values winprob:N: each decision's rollouts are copies of the stopped native state,
    the estimator's stream moved on as the reference's (native) rollouts move it."""
    g = _game(name)
    native = analyze(g, n=n, seed=2, values="winprob:3").to_dict()
    reference = analyze(g, n=n, seed=2, values="winprob:3", engine="reference").to_dict()
    assert (native["engine"], reference["engine"]) == ("native", "reference")
    assert native["playouts_engine"] == reference["playouts_engine"] == "native"
    assert json.dumps(_without_engine(native), sort_keys=True) == json.dumps(_without_engine(reference), sort_keys=True)


def test_worker_processes_trace_natively_the_same_games():
    g = _game("schwimmen")
    two = analyze(g, n=10, seed=3, workers=2).to_dict()
    one = analyze(g, n=10, seed=3, engine="reference").to_dict()
    assert (two["engine"], one["engine"]) == ("native", "reference")
    assert json.dumps(_without_engine(two), sort_keys=True) == json.dumps(_without_engine(one), sort_keys=True)


def test_a_scoring_not_yet_evaluable_is_none_natively_as_on_the_reference():
    g = _game("empty-until-late")
    got = trace_game(g, ["random"] * 3, 5)
    assert got["engine"] == "native"
    assert got["trace"][:3] == [None, None, None] and None not in got["trace"][3:]
    assert got == {**trace_game(g, ["random"] * 3, 5, engine="reference"), "engine": "native"}


def test_what_native_code_does_not_trace_is_traced_by_the_reference_interpreter():
    schwimmen = _game("schwimmen")
    specs = ["random"] * schwimmen.nplayers
    # a simultaneous stage; --values winprob:N with the rollouts on the reference; a look-ahead
    # player at the table
    goofspiel = _game("goofspiel")
    assert trace_game(goofspiel, ["random"] * goofspiel.nplayers, 1)["engine"] == "reference"
    assert trace_game(schwimmen, specs, 1, values=2, playouts="reference")["engine"] == "reference"
    # (a look-ahead player at the table: a native table, whose twin the trace reads)
    assert trace_game(schwimmen, ["greedy:1"] + specs[1:], 1)["engine"] == "native"
    # the step limit: native code stops, the reference interpreter says so
    endless = tiny("(stage player (end (== 1 2)) (choice ((inc (game sto T)) (inc (game sto U)))))")
    assert trace_game(endless, ["random"] * 2, 1, max_steps=50) == {"seed": 1, "limit": True, "engine": "reference"}
    # a rule broken: the reference interpreter's exact message
    broken = tiny(
        "(stage player (end (== (game sto T) 9)) (choice ((move (top (game iloc STOCK)) (top (game iloc X))))) (do ((inc (game sto T)))))"
    )
    with pytest.raises(RecycleRuntimeError) as native:
        trace_game(broken, ["random"] * 2, 1)
    with pytest.raises(RecycleRuntimeError) as reference:
        trace_game(broken, ["random"] * 2, 1, engine="reference")
    assert str(native.value) == str(reference.value)


def test_a_game_near_its_work_budget_is_traced_by_the_reference_interpreter():
    """The reference charges the scoring at every decision to the work budget: a traced game near
    it could stop where native code does not, so the reference interpreter traces it."""
    text = (GAMES / "schwimmen.rcy").read_text()
    near = recycle.loads(text, "schwimmen.rcy", max_work=4_000)
    got = trace_game(near, ["random"] * near.nplayers, 3)
    assert got["engine"] == "reference"
    assert got == {**trace_game(near, ["random"] * near.nplayers, 3, engine="reference"), "engine": "reference"}


def test_evolve_is_the_same_evolution_natively(monkeypatch):
    """Trial games (3 a variant, each variant built afresh) and traced games stepped natively:
    the same variants, measures and report as with the reference interpreter."""
    from recycle.native import choose
    from recycle.study.evolve import evolve

    def run():
        r = evolve(GAMES / "golf-six.rcy", generations=1, population=2, games=6, seed=3)
        return r.engine, r.to_json()

    engine, native = run()
    monkeypatch.setattr(choose, "_HERE", [False])  # no native engine here: the reference interpreter
    engine_ref, reference = run()
    assert (engine, engine_ref) == ("native", "reference")
    assert native.pop("engine") == "native" and reference.pop("engine") == "reference"
    assert json.dumps(native, sort_keys=True) == json.dumps(reference, sort_keys=True)


@pytest.mark.parametrize("name", ["hearts", "empty-until-late"])
def test_a_campaigns_rows_with_heuristics_are_the_same_natively(name, monkeypatch):
    """A campaign's games of random players with heuristics (the default) are traced as
    analyze's: natively, the same rows."""
    from recycle.native import choose
    from recycle.study import analysis
    from recycle.study.campaign.job import play_one

    g = _game(name)
    traced = []

    def counted(*args, **kwargs):
        got = real(*args, **kwargs)
        traced.append(got is not None)
        return got

    real = analysis.trace_natively
    monkeypatch.setattr(analysis, "trace_natively", counted)
    native = [play_one(g, "random", seed, 100_000, True) for seed in range(4)]
    assert traced == [True] * 4
    monkeypatch.setattr(choose, "_HERE", [False])
    assert [play_one(g, "random", seed, 100_000, True) for seed in range(4)] == native


@pytest.mark.parametrize("name", ["hearts", "go-fish", "schwimmen"])
def test_the_hidden_locations_found_natively_are_the_references(name, monkeypatch):
    """analyze --information's trial games (random players) are stepped natively: the same
    locations hidden from each seat."""
    from recycle.native import choose
    from recycle.study import trace_native
    from recycle.study.information import hidden_locations

    g = _game(name)
    walked = []
    real = trace_native.walk_natively
    monkeypatch.setattr(trace_native, "walk_natively", lambda *a: walked.append(real(*a)) or walked[-1])
    native = hidden_locations(g, seed=2, trials=3)
    assert walked == [True] * 3 and any(native.values())
    monkeypatch.setattr(choose, "_HERE", [False])
    assert hidden_locations(g, seed=2, trials=3) == native


@pytest.mark.parametrize("name,specs,values", [("schwimmen", ["ismcts:8", "random"], 0), ("go-fish", ["pimc:4"], 2)])
def test_a_traced_game_with_a_look_ahead_player_is_stepped_natively_with_the_reference_s_record(name, specs, values):
    """A look-ahead player at the table: the native table keeps its reference twin in step (the
    seats' blind copies come from it), which the trace reads, so the game is stepped natively
    and its record is the reference's number for number."""
    g = recycle.load(GAMES / f"{name}.rcy")
    specs = [specs[min(p, len(specs) - 1)] for p in range(g.nplayers)]
    for seed in (1, 2):
        native = trace_game(g, specs, seed, values=values)
        ref = trace_game(g, specs, seed, values=values, engine="reference")
        assert (native.pop("engine"), ref.pop("engine")) == ("native", "reference")
        assert native == ref and len(native["trace"]) > 3


def test_the_luck_analyst_s_games_are_stepped_natively_with_the_reference_s_estimates():
    """``analyze --luck``'s games (``equity_game``): stepped natively, the analyst reading the
    table's reference twin, the same decision points, estimates and chance flags."""
    from recycle.study.equity import equity_game

    g = recycle.load(GAMES / "schwimmen.rcy")
    for specs in (["random"] * g.nplayers, ["ismcts:6"] + ["random"] * (g.nplayers - 1)):
        native = equity_game(g, specs, 3, rollouts=2)
        ref = equity_game(g, specs, 3, rollouts=2, engine="reference")
        assert (native.pop("engine"), ref.pop("engine")) == ("native", "reference")
        assert native == ref and len(native["points"]) > 3


def test_the_information_value_s_seat_games_are_stepped_natively_alike(monkeypatch):
    """``analyze --information``'s games with a seat seeing hidden locations: native tables (the
    seat reads the twin's live observation), the same wins as on the reference interpreter."""
    from recycle.study import information

    g = recycle.load(GAMES / "schwimmen.rcy")
    real, engines = recycle.PreparedGame.play, []

    def played(force):
        def play(self, *a, **k):
            if force:
                k["engine"] = force
            r = real(self, *a, **k)
            engines.append(r.engine)
            return r

        monkeypatch.setattr(recycle.PreparedGame, "play", play)
        return [information.seat_game(g, 0, 6, (5,), ["random"] * g.nplayers, sd, 100_000) for sd in range(3)]

    native = played(None)
    assert engines == ["native"] * 3
    ref = played("reference")
    assert engines[3:] == ["reference"] * 3
    assert [w for w, _ in native] == [w for w, _ in ref]
