"""Card-level forms written out as Python (recycle/lang/python/pycards.py) keep the closures' meaning.

Each small game below drives one written-out form into its rare case (an empty view, a card
no player owns, a tie broken at random, an overflowing sum, recorded events, a queued next
player) and is played by the compiled engine and plainly for several seeds: the same
decisions, card places, scores, or the same error to the letter
(``test_differential.compare_seed``). Each test also checks that the form is really written
out, so that the comparison is not one of two closures."""

from __future__ import annotations

import pytest

import recycle
from tests.conftest import GAMES
from tests.engine.test_differential import compare_seed

DECK = "(create deck (game iloc STOCK) (deck (RANK (A, B, C, D)) (SUIT (X, Y))))"


def game(flow: str, players: int = 2) -> str:
    return f"""(game (setup (create players {players}) {DECK})
 {flow}
 (scoring max ((current player) sto S)))"""


def both(text: str):
    return (recycle.loads(text, "t.rcy", engine="compiled"), recycle.loads(text, "t.rcy", engine="plain"))


def failing_alike(fast, plain, seed: int) -> str:
    """The message both engines stop the game ``seed`` with (required to be the same)."""
    errors = []
    for g in (fast, plain):
        with pytest.raises(recycle.RecycleError) as info:
            g.play(seed=seed)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    return errors[0]


DEAL = "(shuffle (game iloc STOCK)) (all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))"
POINTS = "(set (game points PTS) (((RANK : A) 4) ((RANK : B) 3) ((RANK : C) 3) ((RANK : D) 1)))"


def test_highest_card_of_a_union_and_its_owner_with_ties():
    flow = f"""(do ({DEAL} {POINTS}
      (all player 'P (move (top ('P iloc HAND)) (top ('P vloc TRICK))))
      (cycle next (owner (max (union (all player 'P ('P vloc TRICK))) using (game points PTS))))
      (set ((next player) sto S) (size (union (all player 'P ('P vloc TRICK)))))
      (all player 'P (move (top ('P vloc TRICK)) (top ((next player) vloc WON))))
      (set ((current player) sto S) (sum (union (game iloc STOCK) ((current player) vloc WON)) using (game points PTS)))))"""
    text = game(flow, players=3)
    fast, plain = both(text)
    src = fast.generated
    assert "def union_" in src and "def max_" in src and "def owner_" in src and "def sum_" in src
    assert "s.pstack[-1][1] = owner_" in src
    outcomes = {compare_seed(fast, plain, seed) for seed in range(30)}
    assert outcomes == {"ok"}
    # the ties among equal points (B and C score alike) are drawn from the game's generator
    winners = {tuple(fast.random_rollout(seed).location(p, "vloc", "WON")) for seed in range(30) for p in range(3)}
    assert len(winners) > 3


@pytest.mark.parametrize("flow, message", [
    ("(do ((cycle next (owner (max (union (all player 'P ('P vloc TRICK))) using (game points PTS))))))",
     "no card"),
    ("(do ((cycle next (owner (max (union (game iloc STOCK)) using (game points PTS))))))", "which no player owns"),
    ("(do ((set (game points PTS) (((RANK : A) 9223372036854775807))) (repeat 2 (move (top (game iloc STOCK)) "
     "(top (game vloc W)))) (set ((current player) sto S) (sum (union (game iloc STOCK) (game vloc W) (game vloc W)) "
     "using (game points PTS)))))", "overflow"),
])
def test_rare_cases_fail_alike(flow, message):
    fast, plain = both(game(flow))
    assert "def union_" in fast.generated
    assert message in failing_alike(fast, plain, 3)
    assert compare_seed(fast, plain, 3) != "ok"


def test_repeat_all_moves_at_once_and_one_by_one_when_recorded():
    flow = f"(do ({DEAL} (repeat all (move (top ((current player) iloc HAND)) (top (game vloc PILE))))))"
    fast, plain = both(game(flow))
    assert "s.locs[_d" in fast.generated and "[::-1]" in fast.generated
    for seed in range(10):
        assert compare_seed(fast, plain, seed) == "ok"
        a, b = fast.play(seed=seed, record=True), plain.play(seed=seed, record=True)
        assert [repr(x) for x in a.events] == [repr(x) for x in b.events]
        assert len(a.state.location("game", "vloc", "PILE")) == 2


def test_a_budget_too_small_for_the_moves_stops_alike():
    flow = "(do ((repeat all (move (top (game iloc STOCK)) (top (game vloc PILE))))))"
    text = game(flow)
    errors = []
    for engine in ("compiled", "plain"):
        g = recycle.loads(text, "t.rcy", engine=engine, max_work=6)
        with pytest.raises(recycle.RecycleError) as info:
            g.play(seed=0)
        errors.append(str(info.value))
    assert errors[0] == errors[1] and "work" in errors[0]


def outcome(g, seed: int):
    try:
        s = g.random_rollout(seed)
    except recycle.RecycleError as exc:
        return str(exc)
    return (list(s.scores), [list(loc) for loc in s.locs])


def test_every_budget_runs_out_at_the_same_form():
    # each written-out form charges what its closure charges, when the closure does: with
    # every budget from too small to enough, both engines stop at the same form or finish alike
    flow = f"""(stage player (end (> (game sto ROUND) 2)) (do ((inc (game sto ROUND)) {DEAL} {POINTS}
      (all player 'P (move (top ('P iloc HAND)) (top ('P vloc TRICK))))
      (cycle next (owner (max (union (all player 'P ('P vloc TRICK))) using (game points PTS))))
      ((!= (size (filter (union (all player 'P ('P vloc TRICK))) 'C (== (cardatt SUIT 'C) X))) 0)
       (inc ((current player) sto S)))
      (all player 'P (move (top ('P vloc TRICK)) (top ((next player) vloc WON))))
      (set ((current player) sto S) (sum (union (game iloc STOCK) ((current player) vloc WON)) using (game points PTS)))
      (all player 'P (repeat all (move (top ('P iloc HAND)) (top (game iloc STOCK)))))
      (repeat all (move (top ((current player) vloc WON)) (top (game iloc STOCK))))
      (all player 'P (repeat all (move (top ('P vloc WON)) (top (game iloc STOCK))))))))"""
    text = game(flow, players=3)
    seen = set()
    for max_work in range(1, 760, 2):
        fast = recycle.loads(text, "t.rcy", engine="compiled", max_work=max_work)
        plain = recycle.loads(text, "t.rcy", engine="plain", max_work=max_work)
        assert "def filter_" in fast.generated and "def max_" in fast.generated
        a, b = outcome(fast, 1), outcome(plain, 1)
        assert a == b, max_work
        seen.add(a if isinstance(a, str) else "finished")
    assert "finished" in seen and len(seen) >= 5  # stopped at several different forms


BIG = "(create deck (game iloc STOCK) (deck (RANK (A, B, C, D, E, F, G, H, I, J, K, L, M)) (SUIT (X, Y))))"


@pytest.mark.parametrize("inner", [
    # cheap: worked out once per hand and remembered while the hand is unchanged
    "(or (any (partition RANK ('P iloc HAND)) 'G (== (sum 'G using (game points PTS)) 8)) "
    "(any (partition SUIT ('P iloc HAND)) 'G (== (sum 'G using (game points PTS)) 9)))",
    # dear: a loop over more than a few cards takes work each time, so it is never remembered
    "(any ('P iloc HAND) 'C (and (== (cardatt RANK 'C) M) (== (size ('P iloc HAND)) 10)))",
])
def test_remembered_conditions_charge_and_answer_as_the_closures(inner):
    flow = f"""(do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 12 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
      (set (game points PTS) (((RANK : A) 4) ((RANK : B) 3) ((RANK : C) 5)))
      (stage player (end (or (> (game sto ROUND) 30) (any player 'P {inner})))
        (do ((inc (game sto ROUND))
             (choice ((turn pass)
                      (any ((current player) iloc HAND) 'C (move 'C (top (game iloc STOCK))))
                      ((> (size (game iloc STOCK)) 0) (move (top (game iloc STOCK)) (top ((current player) iloc HAND)))))))))))"""
    text = f"""(game (setup (create players 2) {BIG}) {flow} (scoring max (game sto ROUND)))"""
    fast, plain = both(text)
    assert "def memo_" in fast.generated
    assert {compare_seed(fast, plain, seed) for seed in range(20)} == {"ok"}
    rounds = {fast.random_rollout(seed).scores[0] for seed in range(20)}
    assert len(rounds) > 2  # the condition ends games at different rounds
    for max_work in range(1, 2000, 37):
        a = outcome(recycle.loads(text, "t.rcy", engine="compiled", max_work=max_work), 2)
        b = outcome(recycle.loads(text, "t.rcy", engine="plain", max_work=max_work), 2)
        assert a == b, max_work


def test_arithmetic_in_a_value_is_written_out_and_overflows_as_the_closure():
    flow = """(do ((set (game sto X) 3)
      (set ((current player) sto S) (+ (* (game sto X) 2) (- (game sto X) 1)))
      (set (game sto Y) (* (game sto X) 1537228672809129302))
      (set (game sto Z) (* (game sto Y) 2))))"""
    fast, plain = both(game(flow))
    assert ":= (" in fast.generated  # (* ...) written with its range check
    message = failing_alike(fast, plain, 1)
    assert "overflow" in message and "*" in message
    fast, plain = both(game(flow.replace("(set (game sto Z) (* (game sto Y) 2))", "")))
    assert compare_seed(fast, plain, 1) == "ok"
    assert fast.play(seed=1).scores == [8, 0]


@pytest.mark.parametrize("swap", [
    # two cards, possibly of the same location (both places are found before either changes)
    "(any ((current player) iloc HAND) 'A (any (union ((current player) iloc HAND) (game iloc STOCK)) 'B (swap 'A 'B)))",
    # two locations
    "(swap ((current player) iloc HAND) (game iloc STOCK))",
])
def test_swaps_are_written_out_and_recorded_alike(swap):
    flow = f"""(do ({DEAL} (stage player (end (> (game sto T) 5))
      (do ((inc (game sto T)) (choice ((turn pass) {swap}))
           (set ((current player) sto S) (size (filter ((current player) iloc HAND) 'C (== (cardatt RANK 'C) A)))))))))"""
    fast, plain = both(game(flow))
    assert "s.card_loc[_va" in fast.generated or "s.locs[_i" in fast.generated
    assert {compare_seed(fast, plain, seed) for seed in range(25)} == {"ok"}
    for seed in range(5):
        a, b = fast.play(seed=seed, record=True), plain.play(seed=seed, record=True)
        assert [repr(x) for x in a.events] == [repr(x) for x in b.events]
        held = sorted(c for loc in a.state.locs for c in loc)
        assert held == list(range(8))  # every card still somewhere, once


def test_a_string_set_from_the_top_card_and_a_map_found_by_it():
    # Hearts' trick: the suit led, then a point map made from it (found again by the suit)
    flow = f"""(do ({DEAL} (stage player (end (> (game sto T) 6))
      (do ((inc (game sto T))
           (set (game str LEAD) (cardatt SUIT (top ((current player) iloc HAND))))
           (set (game points LED) (((SUIT : (game str LEAD)) 10) ((RANK : A) (game sto K))))
           ((> (size ((current player) iloc HAND)) 0) (move (top ((current player) iloc HAND)) (top (game vloc PILE))))
           (set ((current player) sto S) (sum (game vloc PILE) using (game points LED))))))))"""
    fast, plain = both(game(flow))
    assert "s.strs[" in fast.generated and "MAPS" in fast.generated
    assert {compare_seed(fast, plain, seed) for seed in range(20)} == {"ok"}
    # an empty hand gives the empty string, as the closure's (cardatt KEY (top EMPTY))
    assert fast.random_rollout(1).strs == plain.random_rollout(1).strs
    for max_work in range(1, 400, 3):  # making or finding a map charges alike
        a = outcome(recycle.loads(game(flow), "t.rcy", engine="compiled", max_work=max_work), 4)
        b = outcome(recycle.loads(game(flow), "t.rcy", engine="plain", max_work=max_work), 4)
        assert a == b, max_work


@pytest.mark.parametrize("cond", [
    # cheap: looked up inline in the closure's cache by the current hand
    "(any (partition RANK ((current player) iloc HAND)) 'G (== (size 'G) 2))",
    # dear: it takes work each time, so it is never in the cache and the closure pays again
    "(any ((current player) iloc HAND) 'C (and (== (cardatt RANK 'C) M) (> (size ((current player) iloc HAND)) 9)))",
])
def test_conditions_on_the_current_hand_are_looked_up_and_charged_as_the_closures(cond):
    flow = f"""(do ((shuffle (game iloc STOCK))
      (all player 'P (repeat 12 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
      (stage player (end (> (game sto ROUND) 30))
        (do ((inc (game sto ROUND))
             ({cond} (inc ((current player) sto S)))
             (choice ((turn pass)
                      (any ((current player) iloc HAND) 'C (move 'C (top (game iloc STOCK))))
                      ((> (size (game iloc STOCK)) 0) (move (top (game iloc STOCK)) (top ((current player) iloc HAND)))))))))))"""
    text = f"""(game (setup (create players 2) {BIG}) {flow} (scoring max ((current player) sto S)))"""
    fast, plain = both(text)
    assert "CACHE" in fast.generated and "MISSING" in fast.generated
    assert {compare_seed(fast, plain, seed) for seed in range(20)} == {"ok"}
    assert len({tuple(fast.random_rollout(seed).scores) for seed in range(20)}) > 2
    for max_work in range(1, 3000, 41):
        a = outcome(recycle.loads(text, "t.rcy", engine="compiled", max_work=max_work), 2)
        b = outcome(recycle.loads(text, "t.rcy", engine="plain", max_work=max_work), 2)
        assert a == b, max_work


def test_arithmetic_in_a_players_loop_overflows_as_the_closure():
    # the loop is written out player by player; its arithmetic stays the closure's, which reads 'P
    flow = """(do ((set ((current player) sto X) 9223372036854775807)
      ((any player 'P (> (+ ('P sto X) 1) 5)) (set ((current player) sto S) 1))))"""
    fast, plain = both(game(flow))
    message = failing_alike(fast, plain, 1)
    assert "overflow" in message and "+" in message


def test_a_blocks_comment_prints_only_the_start_of_its_form():
    from recycle.lang.python.pytext import short
    from recycle.lang.syntax.reader import SList, parse_file

    def whole_then_cut(node, width):
        text = "".join(ch if ch.isprintable() else "?" for ch in " ".join(str(node).split()))
        return text if len(text) <= width else text[:width - 3] + "..."

    def forms(node):
        yield node
        for item in getattr(node, "items", ()):
            yield from forms(item)

    nodes = [n for f in parse_file(GAMES / "hearts.rcy").forms for n in forms(f)]
    assert sum(isinstance(n, SList) for n in nodes) > 400
    for width in (5, 40, 70, 200):
        for node in nodes:
            assert short(node, width) == whole_then_cut(node, width)
