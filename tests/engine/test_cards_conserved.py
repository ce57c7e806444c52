"""No card is lost or forged: every card stays in exactly one physical location (issue 12, 1).

A ``mem`` location holds references, not cards (RECYCLE.md 3). Taking a card out of one by
place needs ``(actual ...)`` (RECYCLE.md 5.1 and 7; CardStock refuses it too), which moves
the remembered card from where it physically lies and leaves the reference in memory; no
card goes into a mem location except by ``remember``. ``shuffle faro`` interleaves two
different physical locations. A game stopped by an error keeps every card in one place.
Every game here is played on the fast and on the plain compilation, with conservation
checked after every card event (``recycle.study.invariants``); the state-machine fuzzer
(``recycle.study.fuzzing.exercise_state``, ``tools/fuzz.py --state``) runs a few hundred
random games at the end.
"""

from __future__ import annotations

import collections
import time

import pytest

import recycle
from recycle.study.statefuzz import STATE_OUTCOMES, StateFailure, exercise_state, random_game
from recycle.study.invariants import InvariantViolation, check_conservation, checked_play

DECK = "(deck (RANK (A, B, C)) (SUIT (X, Y)))"  # 6 cards, card 5 on top of S
S, T, M = ("game", "iloc", "S"), ("game", "vloc", "T"), ("game", "mem", "M")
REMEMBER = "(remember (top (game iloc S)) (top (game mem M)))"


def game(body: str, fast: bool = True) -> recycle.PreparedGame:
    return recycle.loads(
        f"""(game
 (setup (create players 2)
  (create deck (game iloc S) {DECK}))
 {body}
 (scoring max 0))""",
        "cards.rcy",
        fast=fast,
    )


def both(body: str) -> list:
    return [game(body, fast) for fast in (True, False)]


def played(body: str):
    """The final states of ``body`` on both paths (conservation checked after every event),
    which must agree."""
    states = [checked_play(g, 1, 200).state for g in both(body)]
    a, b = states
    assert [list(loc) for loc in a.locs] == [list(loc) for loc in b.locs] and a.card_loc == b.card_loc
    return a


def compile_error(body: str) -> str:
    messages = []
    for fast in (True, False):
        with pytest.raises(recycle.RecycleCompileError) as info:
            game(body, fast)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    return messages[0]


def runtime_error(body: str) -> str:
    messages = []
    for g in both(body):
        with pytest.raises(recycle.RecycleRuntimeError) as info:
            checked_play(g, 1, 200)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    return messages[0]


# -- moving out of a mem location ----------------------------------------------------------

MEM_MOVES = {
    "a move": f"(do ({REMEMBER} (move (top (game mem M)) (top (game vloc T)))))",
    "repeat 5": f"(do ({REMEMBER} (repeat 5 (move (top (game mem M)) (top (game vloc T))))))",
    "repeat all": f"(do ({REMEMBER} (repeat all (move (top (game mem M)) (top (game vloc T))))))",
    "an index": f"(do ({REMEMBER} (move (0 (game mem M)) (bottom (game vloc T)))))",
    "a choice option": f"(do ({REMEMBER} (choice ((move (top (game mem M)) (top (game vloc T))) (turn pass)))))",
    "a swap": f"(do ({REMEMBER} (swap (top (game mem M)) (bottom (game iloc S)))))",
}


@pytest.mark.parametrize("body", list(MEM_MOVES.values()), ids=list(MEM_MOVES))
def test_taking_a_card_out_of_a_mem_location_needs_actual(body):
    """It used to move the physical card without taking it from S: T held the same card five
    times and S still held all its cards."""
    msg = compile_error(body)
    assert "cannot take a card out of the mem location (game mem M)" in msg and "(actual CARD)" in msg
    assert msg.startswith("cards.rcy:4:")  # the source form's line and column


def test_a_variable_holding_a_mem_location_is_checked_when_the_move_runs():
    msg = runtime_error(f"(do ({REMEMBER} (let (game mem M) 'L (repeat 3 (move (top 'L) (top (game vloc T)))))))")
    assert "cannot take a card out of the mem location M held by 'L" in msg
    msg = runtime_error(f"""(do ({REMEMBER} (move (top (game iloc S)) (top (game vloc T)))
                              (let (game mem M) 'L (swap (top 'L) (bottom (game iloc S))))))""")
    assert "(swap ...) cannot take a card out of the mem location M" in msg


@pytest.mark.parametrize("repeat", ["(repeat 5 {})", "(repeat all {})", "(do ({0} {0}))"])
def test_actual_moves_the_remembered_card_from_where_it_lies(repeat):
    move = "(move (actual (top (game mem M))) (top (game vloc T)))"
    s = played(f"(do ({REMEMBER} {repeat.format(move)}))")
    assert s.location(*S) == [0, 1, 2, 3, 4]  # the card left S ...
    assert s.location(*T) == [5]  # ... once, however often it is moved
    assert s.location(*M) == [5]  # and memory still refers to it
    assert s.card_loc[5] == s.game.layout.find(*T)


def test_actual_in_a_choice_option_and_a_let_bound_mem_location():
    s = played(f"""(do ({REMEMBER} (remember (bottom (game iloc S)) (top (game mem M)))
                      (choice ((move (actual (top (game mem M))) (top (game vloc T)))))
                      (let (game mem M) 'L (move (actual (bottom 'L)) (top (game vloc T))))))""")
    assert s.location(*T) == [0, 5] and s.location(*S) == [1, 2, 3, 4] and s.location(*M) == [5, 0]


def test_a_view_of_a_mem_location_moves_the_physical_card():
    """A view (filter, union, (top N L)) holds references to physical cards: moving out of it
    moves the real card (RECYCLE.md 3), even when they came from memory."""
    s = played(f"""(do ({REMEMBER} (remember (bottom (game iloc S)) (top (game mem M)))
                      (let (filter (game mem M) 'C (== 1 1)) 'V
                           (repeat all (move (top 'V) (top (game vloc T)))))
                      (move (top (top 1 (game mem M))) (bottom (game vloc T)))))""")
    assert s.location(*T) == [0, 5]
    assert s.location(*S) == [1, 2, 3, 4] and s.location(*M) == [5, 0]


# -- moving into a mem location ------------------------------------------------------------


def test_no_card_goes_into_a_mem_location_by_move_or_create():
    """A variable holding a mem location as a destination used to take the card out of S
    and put it only into memory (lost); a deck created in memory was lost whole."""
    msg = runtime_error("(let (game mem M) 'L (repeat 2 (move (top (game iloc S)) (top 'L))))")
    assert "cards cannot be moved into a mem location (M, held by 'L; use remember)" in msg
    assert "not a mem location" in compile_error("(create deck (game mem M) (deck (RANK (Q, K))))")
    assert "not a mem location" in compile_error("(remember (top (game iloc S)) (top (game vloc T)))")


def test_a_stopped_game_keeps_every_card_in_one_place():
    """The card is put back when its destination fails (an index out of range, a variable
    holding a mem location): the stopped state, shown in transcripts, loses no card."""
    for flow in [
        "(move (top (game iloc S)) (9 (game vloc T)))",
        "(let (game mem M) 'L (move (top (game iloc S)) (top 'L)))",
        "(let (game mem M) 'L (move (bottom (game iloc S)) (bottom 'L)))",
        "(do ((remember (top (game iloc S)) (top (game mem M))) (move (actual (top (game mem M))) (7 (game vloc T)))))",
    ]:
        for g in both(flow):
            with pytest.raises(recycle.RecycleRuntimeError) as info:
                g.play(seed=0, record=True)
            state = info.value.partial.state
            check_conservation(state)
            assert state.location(*S) == [0, 1, 2, 3, 4, 5]


# -- shuffle faro --------------------------------------------------------------------------


def test_faro_of_two_locations_interleaves_and_conserves():
    s = played("""(do ((repeat 2 (move (top (game iloc S)) (top (game vloc T))))
                      (shuffle faro (game iloc S) (game vloc T))))""")
    assert s.location(*S) == [0, 5, 1, 4, 2, 3] and s.location(*T) == []
    assert all(s.card_loc[c] == s.game.layout.find(*S) for c in range(6))


def test_faro_of_a_location_with_itself_is_an_error():
    """It used to empty S while its cards still pointed at it."""
    msg = runtime_error("(shuffle faro (game iloc S) (game iloc S))")
    assert "shuffle faro interleaves two different locations, not S with itself" in msg
    assert msg.startswith("cards.rcy:4:2:")
    runtime_error("(let (game iloc S) 'L (shuffle faro 'L (game iloc S)))")


@pytest.mark.parametrize("args", ["(game mem M) (game iloc S)", "(game iloc S) (game mem M)"])
def test_faro_with_a_mem_location_is_an_error(args):
    """It used to put physical cards into memory, or a remembered card into S twice."""
    msg = compile_error(f"(do ({REMEMBER} (shuffle faro {args})))")
    assert "shuffle faro needs physical locations, not a mem location" in msg
    msg = runtime_error(f"(do ({REMEMBER} (let (game mem M) 'L (shuffle faro (game iloc S) 'L))))")
    assert "shuffle faro needs physical locations, not the mem location M" in msg


def test_shuffling_a_mem_location_reorders_references_only():
    s = played(f"(do ({REMEMBER} (remember (bottom (game iloc S)) (top (game mem M))) (shuffle (game mem M))))")
    assert sorted(s.location(*M)) == [0, 5] and s.location(*S) == [0, 1, 2, 3, 4, 5]


# -- swap, remember, forget, a location with itself ----------------------------------------


def test_swap_with_a_mem_location_is_an_error():
    """Two variables holding a mem and a physical location used to swap their lists: S's
    cards went into memory and were lost."""
    msg = runtime_error(f"(do ({REMEMBER} (let (game mem M) 'L (let (game iloc S) 'K (swap 'L 'K)))))")
    assert "cannot swap a mem location" in msg
    assert "cannot swap a mem location" in compile_error("(swap (game mem M) (game iloc S))")


def test_swaps_with_itself_change_nothing():
    s = played("""(do ((swap (game iloc S) (game iloc S)) (swap (top (game iloc S)) (top (game iloc S)))
                      (let (game iloc S) 'L (swap 'L (game iloc S)))))""")
    assert s.location(*S) == [0, 1, 2, 3, 4, 5]
    s = played("(swap (top (game iloc S)) (bottom (game iloc S)))")
    assert s.location(*S) == [5, 1, 2, 3, 4, 0]


def test_moves_between_a_location_and_itself():
    s = played("(repeat 2 (move (top (game iloc S)) (bottom (game iloc S))))")
    assert s.location(*S) == [4, 5, 0, 1, 2, 3]
    s = played("(repeat 3 (move (top (game iloc S)) (top (game iloc S))))")
    assert s.location(*S) == [0, 1, 2, 3, 4, 5]
    # the index is counted after the card left: bottom card to index 2 of the rest
    s = played("(move (bottom (game iloc S)) (2 (game iloc S)))")
    assert s.location(*S) == [1, 2, 0, 3, 4, 5]
    s = played("(repeat all (move (bottom (game iloc S)) (top (game iloc S))))")
    assert s.location(*S) == [0, 1, 2, 3, 4, 5]


def test_remembering_twice_and_forgetting_that_very_entry():
    """``(forget (top M))`` drops the top entry, not the first reference to the same card."""
    s = played("""(do ((remember (top (game iloc S)) (top (game mem M)))
                      (remember (bottom (game iloc S)) (top (game mem M)))
                      (remember (top (game iloc S)) (top (game mem M)))
                      (remember (top (game iloc S)) (0 (game mem M)))))""")
    assert s.location(*M) == [5, 5, 0, 5] and s.location(*S) == [0, 1, 2, 3, 4, 5]
    s = played("""(do ((remember (top (game iloc S)) (top (game mem M)))
                      (remember (bottom (game iloc S)) (top (game mem M)))
                      (remember (top (game iloc S)) (top (game mem M)))
                      (forget (top (game mem M)))))""")
    assert s.location(*M) == [5, 0]
    s = played("""(do ((remember (top (game iloc S)) (top (game mem M)))
                      (remember (bottom (game iloc S)) (top (game mem M)))
                      (forget (1 (game mem M)))
                      (repeat all (forget (top (game mem M))))))""")
    assert s.location(*M) == [] and s.location(*S) == [0, 1, 2, 3, 4, 5]
    assert "forget from the empty location N" in runtime_error("(forget (top (game mem N)))")
    assert "not a mem location" in compile_error("(forget (top (game iloc S)))")
    assert "forget needs a card of a mem location" in compile_error("(forget (max (game mem M) using (game points P)))")


def test_the_checker_catches_a_forged_card():
    """The conservation check is not vacuous: a card put into a second location is caught."""
    g = game("(move (top (game iloc S)) (top (game vloc T)))")
    s = g.new_state(seed=0)
    check_conservation(s)
    s.locs[g.layout.find(*T)].append(s.locs[g.layout.find(*S)][-1])
    with pytest.raises(InvariantViolation, match="in two locations"):
        check_conservation(s)


# -- the state-machine fuzzer, briefly (tools/fuzz.py --state runs 20,000 games) -------------

STATE_GAMES = 200
STATE_SECONDS = 60  # about 4 s on the reference machine; a generous bound against hangs


def test_state_machine_fuzzer_finds_no_lost_or_forged_card():
    """Random games moving cards in every way (views, mem, repeat, choices, swaps, both
    shuffles) watched and as a random rollout: every invariant after
    every step, and the two plays agree."""
    t0 = time.perf_counter()
    outcomes: collections.Counter = collections.Counter()
    failures = []
    for i in range(STATE_GAMES):
        text = random_game(i)
        try:
            outcomes[exercise_state(text, seed=i)] += 1
        except StateFailure as exc:
            failures.append(f"game {i} ({exc.kind}): {str(exc)[:300]}\n{text}")
    assert not failures, "\n\n".join(failures[:3])
    assert set(outcomes) <= set(STATE_OUTCOMES)
    # not vacuous: most games run (many to the end), some stop on the errors they provoke
    assert outcomes["ok"] > STATE_GAMES // 3 and outcomes["runtime error"] > 0
    assert time.perf_counter() - t0 < STATE_SECONDS


def test_random_games_are_reproducible():
    assert random_game(7) == random_game(7) and random_game(7) != random_game(8)
