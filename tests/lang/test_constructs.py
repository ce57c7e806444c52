"""Each RECYCLE construct on a tiny game of our own, so a regression names the construct.

The deck of ``tiny`` is A-X A-Y B-X B-Y C-X C-Y (ids 0..5, first created at the bottom).
"""

import pytest

import recycle
from recycle import ScriptedPlayer

from ..conftest import tiny

STOCK = ("game", "iloc", "STOCK")


def final(game, seed=0, players=None):
    return game.play(players=players, seed=seed).state


def names(game, state, owner, kind, name):
    return [game.card_name(c) for c in state.location(owner, kind, name)]


def test_deck_cartesian_product_order_and_nested_attributes():
    g = tiny(
        "(do ((turn pass)))",
        deck="(deck (RANK (A, TWO)) (COLOR (RED (SUIT (HEARTS, DIAMONDS))) (BLACK (SUIT (CLUBS, SPADES)))))",
    )
    s = final(g)
    assert names(g, s, *STOCK) == ["A♥", "A♦", "A♣", "A♠", "2♥", "2♦", "2♣", "2♠"]
    assert g.card_attrs[3]["COLOR"] == "BLACK" and g.card_attrs[3]["SUIT"] == "SPADES"


def test_move_top_bottom_and_index():
    g = tiny("""(do ((move (top (game iloc STOCK)) (top (game vloc A)))
                     (move (bottom (game iloc STOCK)) (top (game vloc A)))
                     (move (1 (game iloc STOCK)) (bottom (game vloc A)))
                     (move (top (game iloc STOCK)) (1 (game vloc A)))))""")
    s = final(g)
    assert s.location("game", "vloc", "A") == [2, 4, 5, 0]
    assert s.location(*STOCK) == [1, 3]


def test_repeat_all_moving_the_top_reverses_order():
    g = tiny("(do ((repeat all (move (top (game iloc STOCK)) (top (game vloc A))))))")
    s = final(g)
    assert s.location("game", "vloc", "A") == [5, 4, 3, 2, 1, 0]
    assert s.location(*STOCK) == []


def test_repeat_n_runs_n_times():
    g = tiny("(do ((repeat 3 (inc (game sto X) 2)) (repeat 2 (move (top (game iloc STOCK)) (top (game vloc A))))))")
    s = final(g)
    assert s.sto("game", "X") == 6 and s.location("game", "vloc", "A") == [5, 4]


def test_repeated_deal_moves_as_single_moves_do():
    # a repeat of a top-to-top move runs at once when nothing is recorded; the cards, their
    # order and their locations must be those of the recorded one-by-one moves
    g = tiny("""(do ((all player 'P (repeat 2 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
                     (repeat all (move (top ((current player) iloc HAND)) (top (game vloc A))))))""")
    fast, slow = g.play(seed=1).state, g.play(seed=1, record=True).state
    for s in (fast, slow):
        assert s.location("game", "vloc", "A") == [4, 5]
        assert s.location(1, "iloc", "HAND") == [3, 2]
        assert s.location(*STOCK) == [0, 1]
    assert fast.card_loc == slow.card_loc


def test_repeat_moving_more_cards_than_there_are_fails_at_the_empty_location():
    g = tiny("(do ((repeat 7 (move (top (game iloc STOCK)) (top (game vloc A))))))")
    with pytest.raises(
        recycle.RecycleRuntimeError, match=r"tiny\.rcy:4:23: runtime error: move from the empty location STOCK"
    ):
        g.play(seed=0)


def test_comparisons_of_a_location_size_with_a_constant():
    # STOCK holds 6 cards, player 0's HAND 2, player 1's HAND none
    g = tiny("""(do ((repeat 2 (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))
                     (repeat 2 (move (top ((current player) iloc HAND)) (top (game iloc STOCK))))
                     (repeat 2 (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))
                     ((< (size (game iloc STOCK)) 5) (inc (game sto A)))
                     ((<= (size (game iloc STOCK)) 4) (inc (game sto B)))
                     ((> (size (game iloc STOCK)) 4) (inc (game sto C)))
                     ((>= (size (game iloc STOCK)) 4) (inc (game sto D)))
                     ((== (size (game iloc STOCK)) 4) (inc (game sto E)))
                     ((!= (size (game iloc STOCK)) 4) (inc (game sto F)))
                     (all player 'P ((== (size ('P iloc HAND)) 0) (inc (game sto EMPTY))))
                     (all player 'P ((>= (size ('P iloc HAND)) 2) (inc (game sto FULL))))))""")
    s = final(g)
    got = [s.sto("game", k) for k in ("A", "B", "C", "D", "E", "F", "EMPTY", "FULL")]
    assert got == [1, 1, 0, 1, 1, 0, 1, 1]


def test_storage_set_inc_dec_bare_inc_and_strings():
    g = tiny("""(do ((set (game sto X) 5) (inc (game sto X)) (dec (game sto X) 10) (dec (game sto Y))
                     (set (game str S) HELLO) ((== (game str S) HELLO) (inc (game sto Z) 7))))""")
    s = final(g)
    assert (s.sto("game", "X"), s.sto("game", "Y"), s.sto("game", "Z")) == (-4, -1, 7)


@pytest.mark.parametrize(
    "expr, value",
    [
        ("(// 7 2)", 3),
        ("(// (- 0 7) 2)", -3),
        ("(% (- 0 7) 2)", -1),
        ("(% 7 (- 0 2))", 1),
        ("(^ 2 10)", 1024),
        ("(tri 4)", 10),
        ("(fib 0)", 0),
        ("(fib 2)", 1),
        ("(fib 10)", 55),
        ("(* 3 (+ 1 2))", 9),
        ("(size (game iloc STOCK))", 6),
        ("(size (range 1..8))", 8),
        ("(size (A, B, C))", 3),
        ("(size player)", 3),
        ("(size (other player))", 2),
    ],
)
def test_integer_expressions(expr, value):
    g = tiny(f"(do ((set (game sto R) {expr})))", players=3)
    assert final(g).sto("game", "R") == value


def test_division_by_zero_names_the_form_and_line():
    g = tiny("(do (\n(set (game sto R) (// 1 (game sto Z)))))")
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        g.play(seed=0)
    assert "division by zero" in str(info.value) and "tiny.rcy:5:" in str(info.value)


def test_random_is_seeded_and_in_range():
    g = tiny("(do ((set (game sto R) (random 3..5)) (set (game sto Q) (random 2))))")
    values = {(final(g, seed).sto("game", "R"), final(g, seed).sto("game", "Q")) for seed in range(40)}
    assert {r for r, _ in values} == {3, 4, 5} and {q for _, q in values} == {0, 1, 2}
    assert final(g, 9).sto("game", "R") == final(g, 9).sto("game", "R")


def test_point_maps_with_computed_parts_follow_their_values():
    # the suit and the points come from storages; the map must change with them (and come
    # back when they do), as Hearts' trick-winning map follows the suit led
    g = tiny("""(do ((set (game str S) X) (set (game sto N) 7)
                     (set (game points P) (((SUIT : (game str S)) (game sto N)) ((RANK : A) 1)))
                     (set (game sto A) (sum (game iloc STOCK) using (game points P)))
                     (set (game str S) Y) (set (game sto N) 2)
                     (set (game points P) (((SUIT : (game str S)) (game sto N)) ((RANK : A) 1)))
                     (set (game sto B) (sum (game iloc STOCK) using (game points P)))
                     (set (game str S) X) (set (game sto N) 7)
                     (set (game points P) (((SUIT : (game str S)) (game sto N)) ((RANK : A) 1)))
                     (set (game sto C) (sum (game iloc STOCK) using (game points P)))))""")
    s = final(g)
    # three cards of each suit; two aces
    assert (s.sto("game", "A"), s.sto("game", "B"), s.sto("game", "C")) == (23, 8, 23)


def test_points_sum_score_max_min_and_cardatt():
    g = tiny("""(do ((set (game points P) (((RANK : A) 1) ((RANK : B) 5) ((SUIT : Y) 10) ((RANK : C) (SUIT : X) 100)))
                     (set (game sto SUM) (sum (game iloc STOCK) using (game points P)))
                     (set (game sto TOP) (score (top (game iloc STOCK)) using (game points P)))
                     (move (max (game iloc STOCK) using (game points P)) (top (game vloc HI)))
                     (move (min (game iloc STOCK) using (game points P)) (top (game vloc LO)))
                     (set (game str R) (cardatt RANK (top (game vloc HI))))
                     (set (game str E) (cardatt RANK (top (game vloc EMPTY))))))""")
    s = final(g)
    assert s.sto("game", "SUM") == 1 + 11 + 5 + 15 + 100 + 10
    assert s.sto("game", "TOP") == 10
    assert names(g, s, "game", "vloc", "HI") == ["C-X"] and names(g, s, "game", "vloc", "LO") == ["A-X"]
    assert s.strs[g.layout.storage_slot("str", "game", "R")] == "C"
    assert s.strs[g.layout.storage_slot("str", "game", "E")] == ""


def test_filter_union_partition_and_top_n():
    g = tiny("""(do ((set (game sto F) (size (filter (game iloc STOCK) 'C (== (cardatt SUIT 'C) X))))
                     (set (game sto U) (size (union (game iloc STOCK) (game iloc STOCK))))
                     (set (game sto G) (size (partition RANK (game iloc STOCK))))
                     (set (game sto T) (size (top (partition SUIT (game iloc STOCK)))))
                     (repeat all (move (top (top 2 (game iloc STOCK))) (top (game vloc TWO))))))""")
    s = final(g)
    assert (s.sto("game", "F"), s.sto("game", "U"), s.sto("game", "G"), s.sto("game", "T")) == (3, 12, 3, 3)
    assert s.location("game", "vloc", "TWO") == [4, 3]  # a (top N L) view lists the topmost first


def test_union_of_all_players_locations():
    g = tiny(
        """(do ((all player 'P (move (top (game iloc STOCK)) (top ('P vloc H))))
                     (set (game sto N) (size (union (all player 'P ('P vloc H)))))))""",
        players=3,
    )
    assert final(g).sto("game", "N") == 3


def test_tuples_subsets_and_runs():
    deck = "(deck (RANK (ONE, TWO, THREE, FOUR)) (SUIT (X, Y)))"
    pts = "(set (game points V) (((RANK : ONE) 1) ((RANK : TWO) 2) ((RANK : THREE) 3) ((RANK : FOUR) 4)))"
    g = tiny(
        f"""(do ({pts}
        (set (game sto PAIRS) (size (tuples 2 (game iloc STOCK) using (game points V))))
        (set (game sto SUBS) (size (subsets (top 3 (game iloc STOCK)))))
        (set (game sto RL) (size (runs largest 3 (game iloc STOCK) using (game points V))))
        (set (game sto RA) (size (runs all 2 (filter (game iloc STOCK) 'C (== (cardatt SUIT 'C) X))
                                         using (game points V))))))""",
        deck=deck,
    )
    s = final(g)
    assert s.sto("game", "PAIRS") == 4  # one pair per rank
    assert s.sto("game", "SUBS") == 8
    assert s.sto("game", "RL") == 16  # one maximal run 1-2-3-4 per choice of suit
    assert s.sto("game", "RA") == 6  # 12 23 34 123 234 1234


def test_any_and_all_as_actions_run_for_each_element():
    g = tiny("""(do ((any (range 1..4) 'I (inc (game sto A) 'I))
                     (all (game iloc STOCK) 'C ((== (cardatt SUIT 'C) Y) (move 'C (top (game vloc Y)))))))""")
    s = final(g)
    assert s.sto("game", "A") == 10
    assert names(g, s, "game", "vloc", "Y") == ["A-Y", "B-Y", "C-Y"]


def test_boolean_any_all_and_or_not():
    g = tiny("""(do (((and (any (game iloc STOCK) 'C (== (cardatt RANK 'C) C))
                          (all (game iloc STOCK) 'C (!= (cardatt RANK 'C) D))
                          (not (== 1 2))
                          (or (== 1 2) (all (game vloc NONE) 'C (== 1 2))))
                     (set (game sto OK) 1))))""")
    assert final(g).sto("game", "OK") == 1


@pytest.mark.parametrize(
    "cond, expected",
    [
        ("(and (== 1 1) (== 2 2) (== 3 3))", 1),
        ("(and (== 1 1) (== 2 2) (== 3 4))", 0),
        ("(and (== 1 1) (== 2 2) (== 3 3) (== 4 4))", 1),
        ("(and (== 1 1) (== 2 3) (== 3 3) (== 4 4))", 0),
        ("(or (== 1 2) (== 2 3) (== 3 3))", 1),
        ("(or (== 1 2) (== 2 3) (== 3 4))", 0),
        ("(or (== 1 2) (== 2 3) (== 3 4) (== 4 4))", 1),
        ("(or (== 1 2) (== 2 3) (== 3 4) (== 4 5))", 0),
        ("(== (game str S) HELLO)", 1),
        ("(!= (game str S) HELLO)", 0),
        ("(== (game str T) HELLO)", 0),
        ("(any (game iloc STOCK) 'C (== (cardatt SUIT 'C) Y))", 1),
        ("(all (game iloc STOCK) 'C (!= (cardatt RANK 'C) D))", 1),
        ("(all (game iloc STOCK) 'C (== (cardatt SUIT 'C) Y))", 0),
        ("(== (size (filter (game iloc STOCK) 'C (!= (cardatt RANK 'C) A))) 4)", 1),
    ],
)
def test_conditions_of_many_parts_strings_and_card_attributes(cond, expected):
    g = tiny(f"(do ((set (game str S) HELLO) ({cond} (set (game sto OK) 1))))")
    assert final(g).sto("game", "OK") == expected


def test_let_binds_and_shadows():
    g = tiny("(do ((let 3 'X (let (+ 'X 1) 'X (set (game sto R) 'X)))))")
    assert final(g).sto("game", "R") == 4


def test_let_bound_view_is_live_when_moving_out():
    g = tiny("""(do ((let (filter (game iloc STOCK) 'C (== (cardatt SUIT 'C) X)) 'V
                       (repeat all (move (top 'V) (top (game vloc OUT)))))))""")
    s = final(g)
    assert names(g, s, "game", "vloc", "OUT") == ["C-X", "B-X", "A-X"]


def test_swap_locations_and_cards():
    g = tiny("""(do ((repeat 2 (move (top (game iloc STOCK)) (top (game vloc A))))
                     (swap (game vloc A) (game iloc STOCK))
                     (swap (bottom (game vloc A)) (top (game iloc STOCK)))))""")
    s = final(g)
    assert s.location("game", "iloc", "STOCK") == [5, 0]
    assert s.location("game", "vloc", "A") == [4, 1, 2, 3]
    assert s.card_loc[4] == g.layout.find("game", "vloc", "A")


def test_remember_and_forget_keep_the_card_in_place():
    g = tiny("""(do ((remember (top (game iloc STOCK)) (top (game mem SEEN)))
                     (set (game sto N) (size (game mem SEEN)))
                     (forget (top (game mem SEEN)))))""")
    s = final(g)
    assert s.sto("game", "N") == 1 and s.location("game", "mem", "SEEN") == [] and len(s.location(*STOCK)) == 6


def test_stage_checks_end_before_the_first_turn():
    g = tiny("(stage player (end (== 1 1)) (inc (game sto TURNS)))")
    assert final(g).sto("game", "TURNS") == 0


def test_stage_turn_order_and_nested_stage_starts_with_current():
    # the outer stage gives each player one turn; the inner one runs two turns from the current player
    g = tiny(
        """(stage player (end (== (game sto ROUND) 3))
                 (do ((inc (game sto ROUND))
                      (set ((current player) sto SEEN) (game sto ROUND))))
                 (stage player (end (== (game sto INNER) 2))
                   (inc (game sto INNER))
                   (inc ((current player) sto INNERTURNS)))
                 (do ((set (game sto INNER) 0))))""",
        players=3,
    )
    s = final(g)
    assert [s.sto(p, "SEEN") for p in range(3)] == [1, 2, 3]
    assert [s.sto(p, "INNERTURNS") for p in range(3)] == [2, 2, 2]


def test_cycle_next_owner_gives_the_trick_winner_the_lead():
    # P1 holds the higher cards: after P0 leads the first trick, P1 wins and leads every trick
    trick = "(union (all player 'P ('P vloc TRICK)))"
    g = tiny(f"""(do ((set (game points V) (((RANK : A) 1) ((RANK : B) 2) ((RANK : C) 3)))
                     (repeat 3 (move (top (game iloc STOCK)) (top ((1 player) iloc HAND))))
                     (repeat 3 (move (top (game iloc STOCK)) (top ((0 player) iloc HAND))))))
                (stage player (end (== (size (game vloc DONE)) 6))
                  (do ((inc ((current player) sto LED))))
                  (stage player (end (== (size {trick}) 2))
                    (move (top ((current player) iloc HAND)) (top ((current player) vloc TRICK))))
                  (do ((cycle next (owner (max {trick} using (game points V))))
                       (all player 'P (repeat all (move (top ('P vloc TRICK)) (top (game vloc DONE))))))))""")
    s = final(g)
    assert s.sto(0, "LED") == 1 and s.sto(1, "LED") == 2


def test_owner_of_a_table_card_is_an_error():
    g = tiny("(do ((cycle next (owner (top (game iloc STOCK))))))")
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        g.play(seed=0)
    assert "no player owns" in str(info.value)


def test_cycle_current_switches_immediately():
    g = tiny("(do ((cycle current next) (set ((current player) sto X) 1)))", players=3)
    s = final(g)
    assert [s.sto(p, "X") for p in range(3)] == [0, 1, 0]


def test_teams_and_team_stage():
    g = tiny(
        """(stage team (end (== (game sto T) 2))
                  (do ((inc (game sto T)) (inc ((current team) sto TURNS))
                       (set ((team (0 player)) sto MINE) 5))))""",
        players=4,
    )
    text = g.source.text.replace("(create players 4)", "(create players 4) (create teams (0, 2) (1, 3))")
    g = recycle.loads(text)
    s = final(g)
    slot = g.layout.storage_slot
    assert s.ints[slot("sto", "T0", "TURNS")] == 1 and s.ints[slot("sto", "T1", "TURNS")] == 1
    assert s.ints[slot("sto", "T0", "MINE")] == 5 and s.team_of == [0, 1, 0, 1]


def test_choice_options_any_branches_and_empty_options_are_dropped():
    seen = []
    g = tiny("""(choice ((any (game iloc STOCK) 'C (move 'C (top (game vloc PICKED))))
                         ((== 1 2) (turn pass))
                         (repeat all (move (top (game vloc EMPTY)) (top (game vloc X))))
                         (turn pass)))""")
    g.play(seed=0, on_decision=lambda s, p, opts, i: seen.append(len(opts)))
    assert seen == [7]


def test_choice_do_composition_sees_the_state_so_far():
    # the any inside the do ranges over the pile after the first move of the same option
    seen = []
    g = tiny("""(choice ((do ((move (top (game iloc STOCK)) (top (game vloc A)))
                             (any (game vloc A) 'C (move 'C (top (game vloc B))))))))""")
    res = g.play(seed=0, on_decision=lambda s, p, opts, i: seen.append(len(opts)))
    assert seen == [1] and res.state.location("game", "vloc", "B") == [5]


def test_choice_with_no_option_is_an_error():
    g = tiny("(choice (((== 1 2) (turn pass))))")
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        g.play(seed=0)
    assert "no legal option" in str(info.value) and "(choice ...)" in str(info.value)


def test_scripted_player_picks_the_listed_options():
    g = tiny("(choice ((set (game sto X) 1) (set (game sto X) 2) (set (game sto X) 3)))")
    s = g.play(players=[ScriptedPlayer([2]), ScriptedPlayer([])], seed=0).state
    assert s.sto("game", "X") == 3


def test_scoring_ranks_ties_and_min():
    text = """(game (setup (create players 3) (create deck (game iloc STOCK) (deck (RANK (A)))))
      (do ((set ((0 player) sto S) 5) (set ((1 player) sto S) 9) (set ((2 player) sto S) 9)))
      (scoring max ((current player) sto S)))"""
    r = recycle.loads(text).play(seed=0)
    assert r.scores == [5, 9, 9] and r.winners == [1, 2] and r.ranks == [3, 1, 1]
    r = recycle.loads(text.replace("scoring max", "scoring min")).play(seed=0)
    assert r.winners == [0] and r.ranks == [1, 2, 2]


def test_step_limit_stops_a_game_that_never_ends():
    g = tiny("(stage player (end (== 1 2)) (inc (game sto X)))")
    with pytest.raises(recycle.StepLimitExceeded) as info:
        g.play(seed=0, max_steps=500)
    assert "500 steps" in str(info.value) and "(stage ...)" in str(info.value)


@pytest.mark.parametrize(
    "body, words",
    [
        ("(do ((move (top (game iloc STOCK)) (top (union (game iloc STOCK))))))", "physical location"),
        ("(do ((inc (game sto X) 'NOPE)))", "unknown variable 'NOPE"),
        ("(do ((frobnicate 1)))", "expected an action"),
        ("(do ((set (game sto X) HELLO)))", "expected an integer"),
        # found by tools/fuzz.py: a choice nested in an option (here inside an any) crashed
        ("(choice ((any (range 1..2) 'I (choice ((turn pass))))))", "cannot stand inside the options of a choice"),
        ("(choice (((== 1 1) (stage player (end (== 1 1)) (turn pass)))))", "(stage ...) cannot stand inside"),
    ],
)
def test_compile_errors_are_positioned(body, words):
    with pytest.raises(recycle.RecycleError) as info:
        tiny(body)
    assert words in str(info.value) and "tiny.rcy:4:" in str(info.value)


def test_wrong_kind_of_variable_at_run_time():
    g = tiny("(do ((any (game iloc STOCK) 'C (inc (game sto X) 'C))))")
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        g.play(seed=0)
    assert "'C holds a card, not an integer" in str(info.value)


def test_scores_mid_game_read_the_declared_variables():
    text = """(game (declare (+ 2 3) 'BONUS)
      (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
      (do ((set ((0 player) sto S) 1)))
      (choice ((set ((1 player) sto S) 7) (turn pass)))
      (scoring max (+ ((current player) sto S) 'BONUS)))"""
    g = recycle.loads(text)
    seen = []
    r = g.play(seed=0, on_decision=lambda state, player, options, index: seen.append(g.final_scores(state)))
    assert seen == [[6, 5]]
    assert r.scores in ([6, 12], [6, 5])


def test_simulate_gives_the_same_figures_whatever_the_number_of_workers():
    g = tiny(
        "(stage player (end (> (game sto X) 5)) (choice ((inc (game sto X)) (inc (game sto X) 2))))",
        scoring="(scoring max (game sto X))",
    )
    one, two = recycle.simulate(g, 60, seed=4), recycle.simulate(g, 60, seed=4, workers=2)
    timing = {"rollouts_per_second", "seconds"}
    a = {k: v for k, v in one.to_dict().items() if k not in timing}
    b = {k: v for k, v in two.to_dict().items() if k not in timing}
    assert a == b and a["games"] == 60


def test_intersect_and_disjunction():
    g = tiny("""(do ((move (top (game iloc STOCK)) (top (game vloc A)))
                     (move (top (game iloc STOCK)) (top (game vloc A)))
                     (move (top (game iloc STOCK)) (top (game vloc B)))
                     (set (game sto I) (size (intersect (game vloc A) (union (game vloc A) (game vloc B)))))
                     (set (game sto J) (size (intersect (game vloc A) (game vloc B))))
                     (set (game sto D) (size (disjunction (game vloc A) (game vloc B) (game vloc B))))
                     (move (top (disjunction (game vloc A) (game vloc B) (game vloc B))) (top (game vloc C)))))""")
    s = final(g)
    assert (s.sto("game", "I"), s.sto("game", "J"), s.sto("game", "D")) == (2, 0, 2)
    assert names(g, s, "game", "vloc", "C") == ["C-X"]  # A held C-Y then C-X (its top)


def test_sort_orders_by_score_keeping_ties_in_order_and_actual_moves_the_card():
    g = tiny("""(do ((set (game points P) (((RANK : A) 5) ((RANK : B) 1) ((RANK : C) 5)))
                     (move (bottom (sort (game iloc STOCK) using (game points P))) (top (game vloc LOW)))
                     (move (actual (top (sort (game iloc STOCK) using (game points P)))) (top (game vloc HIGH)))))""")
    s = final(g)
    # scores A-X 5, A-Y 5, B-X 1, B-Y 1, C-X 5, C-Y 5: sorted B-X B-Y A-X A-Y C-X C-Y
    assert names(g, s, "game", "vloc", "LOW") == ["B-X"]
    assert names(g, s, "game", "vloc", "HIGH") == ["C-Y"]
    assert len(s.location("game", "iloc", "STOCK")) == 4


def test_shuffle_is_a_seeded_permutation():
    g = tiny("(do ((shuffle (game iloc STOCK))))")
    orders = [tuple(final(g, seed=k).location("game", "iloc", "STOCK")) for k in range(8)]
    assert all(sorted(o) == list(range(6)) for o in orders)
    assert orders[3] == tuple(final(g, seed=3).location("game", "iloc", "STOCK"))
    assert len(set(orders)) > 4


def test_locations_named_over_a_declared_list_are_registered_in_its_order_within_the_limit():
    """A location named by a variable over a declared list of names is registered when the game
    is compiled, in the list's order; a list that would pass the limit of names is not (each
    name is registered on first use, where the limit is a positioned error)."""
    from recycle.lang.forms.runtime import MAX_NAMES

    body = """(stage player (end (or (== (size (game iloc STOCK)) 0) (any 'COLORS 'C (> (size (game vloc 'C)) 5))))
  (choice ((any 'COLORS 'C (move (top (game iloc STOCK)) (top (game vloc 'C)))))))"""
    game = tiny(body, declare="(declare (GREEN, RED) 'COLORS)")
    assert [n for k, n in game.layout.loc_base if k == "vloc"] == ["GREEN", "RED"]
    many = ", ".join(f"N{i}" for i in range(MAX_NAMES + 1))
    game = tiny(body, declare=f"(declare ({many}) 'COLORS)")
    assert [n for k, n in game.layout.loc_base if k == "vloc"] == []
    with pytest.raises(recycle.RecycleRuntimeError, match=rf"tiny.rcy:\d+:\d+: .*more than {MAX_NAMES} location names"):
        game.random_rollout(1, 100_000)
