"""The work budget: every loop, in actions and in expressions alike, draws from one budget
per game (``max_work``), so that no game file runs for ever inside a single step; recorded
events are bounded; listing a choice's options is linear and paid for; look-ahead players
bound each decision; a game file is read only when it is a regular file of bounded size.

Budgets are counted in units of work, never in seconds: each test gives a small
``max_work`` (or reads what a game used) and checks where and how the game stops.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import recycle
from recycle.engine.game import DEFAULT_MAX_WORK
from recycle.lang.forms import effects
from recycle.lang.syntax.reader import MAX_SOURCE_BYTES, parse_text
from recycle.players.lookahead import MAX_CONSIDERED, GreedyPlayer, ISMCTSPlayer, PIMCPlayer

from ..conftest import ROOT

HEAD = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
"""
TAIL = "\n (scoring max 0))"


def game(body: str, tail: str = TAIL) -> str:
    return HEAD + body + tail


NESTED_ANY = "(any (range 1..200000) 'I (any (range 1..200000) 'J (== 'I 0)))"
NESTED_FILTER = "(size (filter (range 1..200000) 'I (> (size (filter (range 1..200000) 'J (== 'I 'J))) 0)))"
P = "(game points P)"
S = "(game iloc STOCK)"


HEAD20 = HEAD.replace("(A, B, C)", "(A, B, C, D, E, F, G, H, I, J)")  # 20 cards: more than SMALL


def inside(condition: str, n: int, head: str = HEAD) -> str:
    """A game that works ``condition`` out for each of n integers: the filter pays n times the
    condition's forms up front, then each evaluation pays for the work of its inner form."""
    return head + f"(do ((set (game sto X) (size (filter (range 1..{n}) 'I {condition})))))" + TAIL


CONDS = " ".join("((== 1 1) (inc (game sto Y)))" for _ in range(20))

# loops that ran outside every budget: (the game, the form where the budget of 300,000 runs out)
EXPRESSIONS = {
    "conditional": (game(f"({NESTED_ANY} (turn pass))"), "any"),
    "stage end": (game(f"(stage player (end {NESTED_ANY}) (turn pass))"), "any"),
    "set value": (game(f"(do ((set (game sto X) {NESTED_FILTER})))"), "filter"),
    "scoring": (game("(do ((turn pass)))", f"\n (scoring max {NESTED_FILTER}))"), "filter"),
    "all": (inside("(all (range 1..200000) 'J (> 'J 0))", 50), "all"),
    "sum": (inside(f"(> (sum {S} using {P}) 0)", 40_000, HEAD20), "sum"),
    "partition of 20": (inside(f"(> (size (partition RANK {S})) 0)", 40_000, HEAD20), "partition"),
    "union": (inside(f"(> (size (union {S} {S})) 0)", 40_000), "union"),
    "sort": (inside(f"(> (size (sort {S} using {P})) 0)", 40_000), "sort"),
    "tuples": (inside(f"(> (size (tuples 2 {S} using {P})) 0)", 20_000), "tuples"),
    "subsets": (inside(f"(> (size (subsets {S})) 0)", 5_000), "subsets"),
    "runs": (inside(f"(> (size (runs all 1 {S} using {P})) 0)", 30_000), "runs"),
    "intersect of many": (
        game(f"(do ((set (game sto X) (size (intersect (all (range 1..150000) 'I {S}))))))"),
        "intersect",
    ),
    "option listing": (game(f"(choice ((do ((any (range 1..3000) 'I (inc (game sto X))) {CONDS}))))"), "choice"),
    "nested stages": (
        game(
            "(stage player (end (== 1 0)) (stage player (end (> (game sto X) 5)) "
            "(do ((inc (game sto X))))) (do ((set (game sto X) 0))))"
        ),
        "stage",
    ),
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_loops_in_expressions_draw_from_the_budget(name):
    text, form = EXPRESSIONS[name]
    g = recycle.loads(text, "budget.rcy", max_work=300_000)
    with pytest.raises(recycle.StepLimitExceeded) as info:
        g.play(seed=0, max_steps=1_000_000)
    msg = info.value.format()
    assert msg.startswith("budget.rcy:"), msg
    assert "units of work" in msg and "300,000" in msg and "max_work" in msg
    assert info.value.form == form, msg


@pytest.mark.parametrize("name", ["conditional", "set value", "option listing"])
def test_the_budget_strikes_alike_on_the_fast_and_the_plain_path(name):
    text, _ = EXPRESSIONS[name]
    messages = set()
    for fast in (True, False):
        g = recycle.loads(text, "budget.rcy", fast=fast, max_work=250_000)
        for play in (lambda: g.play(seed=0), lambda: g.random_rollout(0), lambda: g.new_state(seed=0)):  # noqa: B023 - each is called in its iteration
            with pytest.raises(recycle.StepLimitExceeded) as info:
                play()
            messages.add(str(info.value))
    assert len(messages) == 1, messages


GAMES = ROOT / "games"


@pytest.mark.parametrize("stem", ["schwimmen", "hearts"])
def test_a_small_budget_stops_real_games_alike_every_way(stem):
    """Every budget from tiny to ample: the game watched, unwatched and as a rollout stops at
    the same form after the same decisions, or ends alike."""
    from ..engine.test_differential import compare_seed

    path = GAMES / f"{stem}.rcy"
    s = recycle.load(path).random_rollout(0)
    used = s.max_work - s.work
    outcomes = set()
    for max_work in (used // 20, used // 5, used // 3, used // 2, 2 * used // 3, 9 * used // 10, 2 * used):
        game = recycle.load(path, max_work=max_work)
        for seed in range(3):
            outcomes.add(compare_seed(game, seed))
    assert {"ok", "StepLimitExceeded"} <= outcomes


def test_a_cached_condition_charges_its_work_on_every_hit():
    """The purity cache must not make work free: a hit charges what the computation took,
    so the fast path (cache) and the plain path (none) use the same work, to the unit."""
    text = HEAD20 + (
        "(stage player (end (> (game sto T) 300)) (do ((inc (game sto T)) "
        "((any (game iloc STOCK) 'C (== (cardatt RANK 'C) Z)) (inc (game sto X))))))" + TAIL
    )
    used = []
    for fast in (True, False):
        s = recycle.loads(text, "cache.rcy", fast=fast).new_state(seed=0)
        used.append(s.max_work - s.work)
    assert used[0] == used[1] > 300 * 20  # 301 turns, each asking about 20 cards
    for path in (GAMES / "schwimmen.rcy", GAMES / "hearts.rcy"):
        totals = []
        for fast in (True, False):
            g = recycle.load(path, fast=fast)
            totals.append([(st := g.random_rollout(seed)).max_work - st.work for seed in range(4)])
        assert totals[0] == totals[1], path.name


# -- the default budget and the API ------------------------------------------------------------


def test_the_default_budget_and_max_work_in_the_api():
    text = game("(do ((repeat 100000 (repeat 100000 (inc (game sto X))))))")
    g = recycle.loads(text, "rep.rcy")
    assert g.max_work == DEFAULT_MAX_WORK == 10_000_000
    with pytest.raises(recycle.StepLimitExceeded) as info:
        g.new_state(seed=0, max_work=123_456)
    assert "123,456 units of work" in str(info.value) and info.value.form == "repeat"
    small = recycle.loads(text, "rep.rcy", max_work=1000)
    assert small.max_work == 1000
    with pytest.raises(recycle.StepLimitExceeded):
        small.play(seed=0)
    with pytest.raises(recycle.StepLimitExceeded):
        small.random_rollout(0)
    for bad in (0, -5, 1.5, True, "9"):
        with pytest.raises(ValueError):
            recycle.loads(text, "rep.rcy", max_work=bad)
    ok = recycle.loads(game("(do ((repeat 10 (inc (game sto X)))))"), "ok.rcy")
    s = ok.new_state(seed=0, max_work=5000)
    assert s.is_terminal() and s.max_work == 5000 and 0 < s.max_work - s.work < 100


def test_the_default_budget_stops_a_loop_of_ten_billion_actions():
    """(repeat 100000 (repeat 100000 ...)) ran 21 s per rollout: it stops at the default budget."""
    g = recycle.loads(game("(do ((repeat 100000 (repeat 100000 (inc (game sto X))))))"), "rep.rcy")
    s = None
    with pytest.raises(recycle.StepLimitExceeded) as info:
        s = g.random_rollout(0)
    assert s is None and "10,000,000 units of work" in str(info.value)


def test_a_large_body_pays_for_its_forms_each_time_it_runs():
    """A loop body of many forms costs in proportion: a repeat of a 200-form body, a stage
    whose turn is 200 forms, an all over such a body."""
    body = " ".join(["(inc (game sto X))"] * 100)
    for flow in (
        f"(do ((repeat 1000 (do ({body})))))",
        f"(do ((all (range 1..1000) 'I (do ({body})))))",
        f"(stage player (end (> (game sto Y) 999)) (do ((inc (game sto Y)) {body})))",
    ):
        g = recycle.loads(game(flow), "big.rcy", max_work=150_000)
        with pytest.raises(recycle.StepLimitExceeded):
            g.play(seed=0, max_steps=10_000)
        s = recycle.loads(game(flow), "big.rcy").new_state(seed=0)
        assert 200_000 <= s.max_work - s.work <= 260_000, flow


def test_recorded_events_are_bounded(monkeypatch):
    monkeypatch.setattr(effects, "MAX_EVENTS", 5000)
    g = recycle.loads(game("(do ((repeat 100000 (inc (game sto X)))))"), "events.rcy")
    assert g.play(seed=0).scores == [0, 0]  # not recorded: no limit on events
    with pytest.raises(recycle.StepLimitExceeded) as info:
        g.play(seed=0, record=True)
    assert "5,000 events" in str(info.value)
    partial = info.value.partial
    assert len(partial.events) == 5000


# -- option listing --------------------------------------------------------------------------


def listing(conditionals: int) -> str:
    conds = " ".join("((== 1 1) (inc (game sto Y)))" for _ in range(conditionals))
    return game(f"(choice ((do ((any (range 1..30) 'I (inc (game sto X))) {conds}))))")


def work_of_listing(conditionals: int) -> int:
    s = recycle.loads(listing(conditionals), "list.rcy").new_state(seed=0)
    assert len(s.legal_options()) == 30
    return s.max_work - s.work


def test_listing_options_is_linear_and_paid_for():
    """An any of 30 followed by k conditionals: each branch runs its k actions once (it used
    to run them again for every later conditional: k^2/2 per branch)."""
    a, b, c = work_of_listing(50), work_of_listing(100), work_of_listing(200)
    assert 1.8 < b / a < 2.2 and 1.8 < c / b < 2.2
    assert c > 30 * 200  # each option's 200 conditionals were worked out
    g = recycle.loads(listing(200), "list.rcy", max_work=c // 2)
    with pytest.raises(recycle.StepLimitExceeded) as info:
        g.new_state(seed=0)
    assert info.value.form == "choice"


def test_listed_options_are_the_same_as_before():
    """The depth-first listing gives the options in the order the breadth-first one did."""
    text = game(
        "(choice ((do ((any (range 1..3) 'I (inc (game sto X) 'I)) "
        "((> (game sto X) 1) (any (range 1..2) 'J (inc (game sto Y) 'J))) "
        "(inc (game sto Z))))))"
    )
    s = recycle.loads(text, "order.rcy").new_state(seed=0)
    seen = []
    for o in s.legal_options():
        t = s.clone()
        t.apply(o.index)
        seen.append((t.sto("game", "X"), t.sto("game", "Y"), t.sto("game", "Z")))
    assert seen == [(1, 0, 1), (2, 1, 1), (2, 2, 1), (3, 1, 1), (3, 2, 1)]


# -- look-ahead players ------------------------------------------------------------------------

WIDE = game("(choice ((any (range 1..50000) 'I (set (game sto X) 'I))))", "\n (scoring max (game sto X)))")


# greedy and pimc list the 50,000 options in every world they try (a minute on 2 cores since the
# lazily listed options went with the fast path): long sweeps
@pytest.mark.parametrize(
    "player",
    [
        pytest.param(GreedyPlayer(3), marks=pytest.mark.slow),
        pytest.param(PIMCPlayer(5), marks=pytest.mark.slow),
        ISMCTSPlayer(20),
    ],
    ids=str,
)
def test_look_ahead_players_finish_a_50000_option_choice(player, caplog):
    g = recycle.loads(WIDE, "wide.rcy")
    with caplog.at_level("WARNING", logger="recycle.players"):
        r = g.play([player, recycle.RandomPlayer()], seed=1)
        r2 = g.play([player, recycle.RandomPlayer()], seed=2)
    assert r.decisions == r2.decisions == 1
    assert len(player.warnings) == 1 and f"sample of {MAX_CONSIDERED}" in player.warnings[0]
    assert sum(f"sample of {MAX_CONSIDERED}" in m for m in caplog.messages) == 1  # said once
    assert r.scores[0] > 0


def test_look_ahead_decisions_share_one_work_budget():
    text = game(
        "(choice ((inc (game sto X)) (inc (game sto Y)))) (do ((repeat 20000 (inc (game sto Z)))))",
        "\n (scoring max (game sto X)))",
    )
    g = recycle.loads(text, "deep.rcy")
    for player in (PIMCPlayer(50), ISMCTSPlayer(50), GreedyPlayer(20)):
        player.max_work = 200_000  # a few simulations of 40,000 units each
        r = g.play([player, recycle.RandomPlayer()], seed=0)
        assert r.scores is not None
        assert any("work budget" in w for w in player.warnings), player
    full = PIMCPlayer(50)
    g.play([full, recycle.RandomPlayer()], seed=0)
    assert full.warnings == []


# -- reading game files ------------------------------------------------------------------------


def test_a_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "game.rcy"
    os.mkfifo(fifo)
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.load(fifo)  # no writer: opening it for reading used to wait for ever
    assert "not a regular file" in str(info.value)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_is_refused_before_reading():
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.load("/dev/zero")
    assert "not a regular file" in str(info.value)


def test_a_folder_and_a_missing_file_are_refused(tmp_path):
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.load(tmp_path)
    assert "folder" in str(info.value)
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.load(tmp_path / "missing.rcy")
    assert "cannot read" in str(info.value)


def test_a_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.rcy"
    with open(big, "wb") as f:
        f.truncate(MAX_SOURCE_BYTES + 1)  # sparse: nothing to read, only the size tells
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.load(big)
    assert f"{MAX_SOURCE_BYTES:,}" in str(info.value)
    assert MAX_SOURCE_BYTES == 150_000  # `recycle check` of the costliest file allowed: about 1.3 s


def large_game(conditionals: int) -> str:
    return game("(do (" + " ".join("((== (game sto X) 1) (inc (game sto Y)))" for _ in range(conditionals)) + "))")


def test_a_large_file_is_read_and_compiled():
    text = large_game(3_500)
    assert 140_000 < len(text) < MAX_SOURCE_BYTES
    sf = parse_text(text, "large.rcy")
    assert len(sf.forms[0].items[2].items[1].items) == 3_500
    g = recycle.loads(text, "large.rcy")
    assert g.play(seed=0).scores == [0, 0]


# the one reader (Lark) against the forms of the reader it replaced: tests/lang/test_parse.py


def test_every_game_uses_a_small_part_of_the_default_budget():
    """The default leaves games ample room: the hungriest of games/ uses well under 5%."""
    for path in sorted(GAMES.glob("*.rcy")):
        g = recycle.load(path)
        for seed in range(3):
            s = g.random_rollout(seed)
            assert s.max_work - s.work < DEFAULT_MAX_WORK // 20, path.name


def test_random_players_see_the_budget_through_play_out():
    g = recycle.loads(
        game("(stage player (end (== 1 0)) (choice ((inc (game sto X)) (inc (game sto Y)))))"),
        "loop.rcy",
        max_work=20_000,
    )
    s = g.new_state(seed=0)
    rng = random.Random(0)
    with pytest.raises(recycle.StepLimitExceeded) as info:
        recycle.play_out(s, [recycle.RandomPlayer()] * 2, rng)
    assert info.value.form in ("stage", "choice")


# -- actions whose work grows with a location's size -------------------------------------------

BIG = "(deck (A ({})) (B ({})))".format(", ".join(map(str, range(1, 101))), ", ".join(map(str, range(1, 201))))
HEAD_BIG = HEAD.replace("(deck (RANK (A, B, C)) (SUIT (X, Y)))", BIG)  # 20,000 cards in STOCK
MEM = "(repeat 20000 (remember (top (game iloc STOCK)) (top (game mem M))))"

# (what is repeated, how often, the form where a budget of 300,000 runs out): without their
# charges each of these ran to the end, paying the repeat's one unit per turn only
BIG_ACTIONS = {
    "shuffle": ("(shuffle (game iloc STOCK))", 200, "shuffle"),
    "faro": ("(shuffle faro (game iloc STOCK) (game iloc PILE))", 200, "shuffle"),
    "swap of locations": ("(swap (game iloc STOCK) (game iloc PILE))", 2000, "swap"),
    "swap of cards": ("(swap (bottom (game iloc STOCK)) (top (game iloc STOCK)))", 2000, "swap"),
    "move from the bottom": ("(move (bottom (game iloc STOCK)) (top (game iloc PILE)))", 10_000, "move"),
    "move to the bottom": ("(move (top (game iloc STOCK)) (bottom (game iloc STOCK)))", 10_000, "move"),
    "move to an index": ("(move (top (game iloc STOCK)) (5 (game iloc STOCK)))", 10_000, "move"),
    "move of a named card": (
        "(remember (bottom (game iloc STOCK)) (top (game mem M))) (repeat 2000 (move (actual "
        "(top (game mem M))) (bottom (game iloc STOCK))))",
        0,
        "move",
    ),
    "forget the bottom": (f"{MEM} (repeat 10000 (forget (bottom (game mem M))))", 0, "forget"),
    "remember at the bottom": (
        f"{MEM} (repeat 10000 (remember (top (game iloc STOCK)) (bottom (game mem M))))",
        0,
        "remember",
    ),
    "point map": ("(set (game points Q) (((A : 1) (game sto X))))", 200, "set"),
}


@pytest.mark.parametrize("name", list(BIG_ACTIONS))
def test_actions_on_large_locations_draw_from_the_budget(name):
    body, times, form = BIG_ACTIONS[name]
    flow = f"(do ((repeat {times} {body})))" if times else f"(do ({body}))"
    messages = set()
    for fast in (True, False):
        g = recycle.loads(HEAD_BIG + flow + TAIL, "big.rcy", fast=fast, max_work=300_000)
        with pytest.raises(recycle.StepLimitExceeded) as info:
            g.play(seed=0)
        assert info.value.form == form and "300,000 units of work" in str(info.value)
        messages.add(info.value.format())
    assert len(messages) == 1


def test_a_shuffle_costs_one_unit_per_card_beyond_eight():
    def used(head, flow):
        s = recycle.loads(head + flow + TAIL, "shuffle.rcy").new_state(seed=0)
        return s.max_work - s.work

    for head, cards in ((HEAD, 6), (HEAD20, 20)):
        extra = used(head, "(do ((repeat 10 (shuffle (game iloc STOCK)))))") - used(
            head, "(do ((repeat 10 (shuffle (game iloc PILE)))))"
        )
        assert extra == (10 * cards if cards > 8 else 0)


def test_a_repeat_of_shuffles_of_a_huge_deck_stops_within_seconds():
    """One shuffle of 20,000 cards takes about 10 ms: 2,000 of them ran for 20 s (100,000 for a
    quarter of an hour) on one unit of work each; now the default budget stops them after 500."""
    import time

    g = recycle.loads(HEAD_BIG + "(do ((repeat 2000 (shuffle (game iloc STOCK)))))" + TAIL, "shuffles.rcy")
    t0 = time.process_time()
    with pytest.raises(recycle.StepLimitExceeded) as info:
        g.random_rollout(0)
    assert info.value.form == "shuffle" and "10,000,000 units of work" in str(info.value)
    assert time.process_time() - t0 < 20


def test_point_maps_kept_for_reuse_are_bounded():
    from recycle.lang.forms.card_table import MAX_POINT_MAPS

    g = recycle.loads(
        game("(do ((repeat 30000 (do ((set (game points Q) (((RANK : A) (game sto X)))) (inc (game sto X)))))))"),
        "maps.rcy",
    )
    s = g.random_rollout(0)
    assert s.ints and len(g.card_table._point_maps) <= MAX_POINT_MAPS < 30_000
    assert len(g.card_table._live_maps) <= MAX_POINT_MAPS + 1  # the 20,000 others, no longer used, are freed
