"""Chance as the rules draw it (recycle/env/chance.py, recycle/env/rules.py): the OpenSpiel
adapter with ``chance="rules"`` has a chance node for each draw that matters, the same
distribution as the seeded shuffle, and information states as the rules define them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra is not installed (pip install -e '.[rl]'): no open_spiel")
np = pytest.importorskip("numpy")

import recycle  # noqa: E402
from recycle.env import openspiel_game  # noqa: E402
from recycle.lang.forms.values import MoveEvent  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "cardstock"
KUHN = CORPUS / "KuhnPoker2.rcy"
LEDUC_CORPUS = CORPUS / "LeducPoker2.rcy"
LEDUC = ROOT / "games" / "leduc.rcy"
HEARTS = ROOT / "games" / "hearts.rcy"


def _need(path):
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared)")


def _walk(state, on_decision, on_terminal=None):
    if state.is_terminal():
        if on_terminal:
            on_terminal(state)
        return
    if state.is_chance_node():
        for a, _ in state.chance_outcomes():
            _walk(state.child(a), on_decision, on_terminal)
        return
    on_decision(state)
    for a in state.legal_actions():
        _walk(state.child(a), on_decision, on_terminal)


def test_kuhn_has_three_times_two_chance_outcomes_and_six_infostates_a_player():
    _need(KUHN)
    game = openspiel_game(KUHN, reward="score", chance="rules")
    s = game.new_initial_state()
    assert s.is_chance_node() and [p for _, p in s.chance_outcomes()] == [pytest.approx(1 / 3)] * 3
    s.apply_action(s.chance_outcomes()[0][0])
    assert s.is_chance_node() and [p for _, p in s.chance_outcomes()] == [0.5, 0.5]
    s.apply_action(s.chance_outcomes()[0][0])
    assert not s.is_chance_node()  # the third card stays in the stock: no draw
    seen: dict = {0: set(), 1: set()}
    terminals = []
    _walk(
        game.new_initial_state(),
        lambda st: seen[st.current_player()].add(st.information_state_string()),
        lambda st: terminals.append(st.returns()),
    )
    assert {p: len(v) for p, v in seen.items()} == {0: 6, 1: 6}
    assert len(terminals) == 30
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def test_openspiel_exact_algorithms_run_through_the_adapter():
    _need(KUHN)
    game = openspiel_game(KUHN, reward="score", chance="rules")
    kuhn = pyspiel.load_game("kuhn_poker")
    ours = pyspiel.exploitability(game, pyspiel.UniformRandomPolicy(game))
    theirs = pyspiel.exploitability(kuhn, pyspiel.UniformRandomPolicy(kuhn))
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_openspiels_cfr_plus_through_the_adapter_is_its_own_on_kuhn_poker():
    """OpenSpiel's C++ CFR+ on recycle's Kuhn: after 100 iterations the average policy is as
    exploitable as on OpenSpiel's own kuhn_poker (the same game, the same information sets)."""
    _need(KUHN)
    figures = []
    for game in (openspiel_game(KUHN, reward="score", chance="rules"), pyspiel.load_game("kuhn_poker")):
        solver = pyspiel.CFRPlusSolver(game)
        for _ in range(100):
            solver.evaluate_and_update_policy()
        figures.append(pyspiel.exploitability(game, solver.average_policy()))
    assert figures[0] == pytest.approx(figures[1], abs=1e-12)
    assert figures[0] < 0.002


def test_identical_cards_are_one_card_to_the_players_leduc_60_infostates():
    _need(LEDUC_CORPUS)
    game = openspiel_game(LEDUC_CORPUS, reward="score", chance="rules")
    strings: dict = {0: set(), 1: set()}
    tensors: dict = {0: set(), 1: set()}
    obs_ok = []

    def look(st):
        p = st.current_player()
        strings[p].add(st.information_state_string())
        tensors[p].add(tuple(st.information_state_tensor()))
        spec = game.spec
        obs_ok.append(np.array_equal(st.observation_tensor(), spec.vector(st.recycle_state(), p)))

    _walk(game.new_initial_state(), look)
    assert {p: len(v) for p, v in strings.items()} == {0: 60, 1: 60}
    # the tensor holds the whole information state: it tells apart what the string tells apart
    assert {p: len(v) for p, v in tensors.items()} == {0: 60, 1: 60}
    assert all(obs_ok)  # the observation tensor is EnvSpec.vector, as with seeded chance


def test_utility_type_follows_the_scores():
    _need(LEDUC)
    assert openspiel_game(LEDUC, reward="score", chance="rules").get_type().utility == (
        pyspiel.GameType.Utility.ZERO_SUM
    )
    # a split pot has two winners: win/loss rewards do not sum to a constant
    assert openspiel_game(LEDUC, chance="rules").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    _need(KUHN)
    kuhn = openspiel_game(KUHN, chance="rules")
    assert kuhn.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert kuhn.utility_sum() == 1.0


def _seeded_first_cards(path, seeds: int, k: int) -> Counter:
    """The names of the first ``k`` cards moved out of a location in seeded games."""
    game = recycle.load(path)
    counts: Counter = Counter()
    for seed in range(seeds):
        s = game.new_state(seed=seed, record=True)
        moved = [e.card for e in s.events if type(e) is MoveEvent and e.action == "move" and e.src is not None]
        counts[tuple(game.card_name(c) for c in moved[:k])] += 1
    return counts


def _chance_first_cards(path, k: int) -> dict:
    """The exact probability of each sequence of names of the first ``k`` cards drawn."""
    game = openspiel_game(path, chance="rules")
    names = game.spec.game.card_name
    out: dict = {}

    def go(st, prefix, p):
        if len(prefix) == k:
            out[prefix] = out.get(prefix, 0.0) + p
            return
        assert st.is_chance_node()
        for a, q in st.chance_outcomes():
            go(st.child(a), (*prefix, names(a)), p * q)

    go(game.new_initial_state(), (), 1.0)
    return out


@pytest.mark.parametrize(
    "path,k,seeds", [(KUHN, 2, 1500), (LEDUC, 2, 1500), (HEARTS, 1, 2600)], ids=["kuhn", "leduc", "hearts"]
)
def test_chance_draws_have_the_seeded_shuffles_distribution(path, k, seeds):
    """Chi-square goodness of fit of seeded deals against the chance nodes' exact distribution."""
    stats = pytest.importorskip("scipy.stats")
    _need(path)
    exact = _chance_first_cards(path, k)
    seen = _seeded_first_cards(path, seeds, k)
    assert set(seen) <= set(exact)
    keys = sorted(exact)
    observed = [seen.get(x, 0) for x in keys]
    expected = [exact[x] * seeds for x in keys]
    assert sum(exact.values()) == pytest.approx(1.0)
    _, p = stats.chisquare(observed, expected)
    assert p > 0.001, (p, dict(zip(keys, observed)))


def _chance_first_moves(path, k: int) -> dict:
    """The exact probability of each sequence of names of the first ``k`` cards moved out of a
    location before the first decision, from the chance nodes (the statistic
    ``_seeded_first_cards`` counts in seeded games, whatever the rules move before they deal)."""
    game = openspiel_game(path)
    names = game.spec.game.card_name
    out: dict = {}

    def moved(st) -> list:
        core = st._core
        ev = [e for e in core.log if type(e) is MoveEvent and e.action == "move" and e.src is not None]
        # at a card's chance node the step stopped at the move of a card still undrawn: not yet the card
        return ev[:-1] if core.node is not None and core.node.kind == "card" else ev

    def go(st, p):
        ev = moved(st)
        if len(ev) >= k or not st.is_chance_node():
            key = tuple(names(e.card) for e in ev[:k])
            out[key] = out.get(key, 0.0) + p
            return
        for a, q in st.chance_outcomes():
            go(st.child(a), p * q)

    go(game.new_initial_state(), 1.0)
    return out


# every twelfth corpus game in name order (the sample tests/env/test_serialize.py plays)
CORPUS_SAMPLE = sorted(CORPUS.glob("*.rcy"))[::12][:5] if CORPUS.is_dir() else []
# the first card moved after those every deal moves alike (HeartsOmnibus4 first moves its 52
# cards from DISCARD to STOCK, then shuffles and deals)
FIXED_FIRST = {"HeartsOmnibus4": 52}


@pytest.mark.parametrize("path", CORPUS_SAMPLE or [None], ids=[p.stem for p in CORPUS_SAMPLE] or ["corpus"])
def test_chance_draws_have_the_seeded_shuffles_distribution_over_a_corpus_sample(path):
    """The first cards moved, in 1,000 seeded deals of each game (seeds 0..999: the same
    figures every run), against their exact probabilities from the chance nodes."""
    stats = pytest.importorskip("scipy.stats")
    if path is None:
        pytest.skip(f"corpus folder {CORPUS} is absent")
    seeds, k = 1000, 1 + FIXED_FIRST.get(path.stem, 0)
    exact = _chance_first_moves(path, k)
    seen = _seeded_first_cards(path, seeds, k)
    assert set(seen) <= set(exact)
    assert sum(exact.values()) == pytest.approx(1.0)
    # outcomes too rare to count are pooled, as a chi-square test needs about 5 expected each
    keys = sorted(exact, key=lambda x: -exact[x])
    common = [x for x in keys if exact[x] * seeds >= 5]
    observed = [seen.get(x, 0) for x in common] + [sum(seen.get(x, 0) for x in keys if x not in common)]
    expected = [exact[x] * seeds for x in common] + [seeds * sum(exact[x] for x in keys if x not in common)]
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    _, p = stats.chisquare(observed, expected)
    assert p > 0.001, (p, seen)


def test_seeded_play_is_unchanged_by_the_chance_driven_mode():
    """The same seed, the same game: the engine's shuffle hands over only to a chance stream."""
    _need(KUHN)
    game = recycle.load(KUHN)
    a = game.new_state(seed=11)
    openspiel_game(KUHN, chance="rules").new_initial_state()
    b = game.new_state(seed=11)
    assert a.locs == b.locs
    assert a.location(0, "iloc", "HAND") == b.location(0, "iloc", "HAND")


@pytest.mark.parametrize("path", [KUHN, LEDUC, ROOT / "games" / "crazy-eights.rcy"], ids=["kuhn", "leduc", "crazy8"])
def test_chance_driven_states_pass_random_sim_test_with_serialization(path):
    _need(path)
    game = openspiel_game(path, chance="rules")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_chance_driven_text_is_checked_and_replayed():
    import pickle

    game = openspiel_game(LEDUC, chance="rules")
    s = game.new_initial_state()
    for a in (3, 1, 1, 1):  # two cards dealt, then P0 and P1 check
        s.apply_action(a)
    text = s.serialize()
    assert text.endswith("\nactions 3,1,1,1")
    t = game.deserialize_state(text)
    assert t.information_state_string(0) == s.information_state_string(0) and t.is_chance_node()
    assert pickle.loads(pickle.dumps(s)).information_state_string(1) == s.information_state_string(1)
    with pytest.raises(ValueError, match="action 2 is 3, not an outcome of its chance node"):
        game.deserialize_state(text.replace("actions 3,1", "actions 3,3"))
    with pytest.raises(ValueError, match="serialized for another game"):
        openspiel_game(LEDUC, chance="seed").deserialize_state(text)  # a seeded game's digest differs


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "games" / "schwimmen.rcy",  # a swap of two cards dealt by chance (cards stay Card objects)
        ROOT / "games" / "go-fish.rcy",
        CORPUS / "ContinuousPairs4.rcy",  # a card drawn and a tie broken in one step: the card first
        CORPUS / "BottleImp3.rcy",
        CORPUS / "Cribbage2.rcy",  # a pile shuffled again while cards of its first shuffle were undrawn
        ROOT / "games" / "hearts.rcy",  # hand after hand: a draw plays its step again, not the match
    ],
    ids=lambda p: p.stem,
)
def test_random_games_play_through_chance_driven_states(path):
    import random

    _need(path)
    game = openspiel_game(path, chance="rules")
    rng = random.Random(0)
    s = game.new_initial_state()
    draws = 0
    while not s.is_terminal():
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            assert sum(p for _, p in outcomes) == pytest.approx(1.0)
            s.apply_action(rng.choice(outcomes)[0])
            draws += 1
        else:
            s.information_state_string()
            s.apply_action(rng.choice(s.legal_actions()))
    assert draws > 0


def test_cards_the_short_names_would_merge_keep_names_of_their_own():
    """LostCities2's short names leave COLOR out: its colours' cards are told apart by all
    their attributes; Leduc's two kings share a name."""
    from recycle.env.rules import class_names

    _need(CORPUS / "LostCities2.rcy")
    game = recycle.load(CORPUS / "LostCities2.rcy")
    names = class_names(game)
    distinct = {tuple(sorted((k, v) for k, v in a.items() if k != "__serial__")) for a in game.card_attrs}
    assert len(set(names)) == len(distinct) == 50
    assert "BLUE-TWO" in names
    assert class_names(recycle.load(LEDUC)) == ["J", "Q", "K", "J", "Q", "K"]


PEEK = """
(game
 (setup
  (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (J, Q, K)))))
 (do ((shuffle (game iloc STOCK))))
 (stage player
  (end (> (game sto DONE) 0))
  (choice (
    (do ((set ((current player) str GUESS) KING) (set (game sto DONE) 1)))
    (do ((set ((current player) str GUESS) OTHER) (set (game sto DONE) 1))))))
 (do (
   ((== (cardatt RANK (top (game iloc STOCK))) K)
    (set (game sto KING) 1))
   ((== ((0 player) str GUESS) KING)
    (inc ((0 player) sto SCORE) (game sto KING)))))
 (scoring max ((current player) sto SCORE)))
"""


def test_a_card_read_without_moving_it_is_drawn(tmp_path):
    """The top of a hidden pile is only read (no card moves): its order still matters, so the
    step that reads it waits for that card's draw."""
    path = tmp_path / "peek.rcy"
    path.write_text(PEEK)
    game = openspiel_game(path, reward="score", chance="rules")
    s = game.new_initial_state()
    assert not s.is_chance_node()  # nothing is drawn before it matters
    s.apply_action(0)  # P0 guesses the top card is a K
    assert s.is_chance_node() and [p for _, p in s.chance_outcomes()] == [pytest.approx(1 / 3)] * 3
    kings = 0.0
    for a, p in s.chance_outcomes():
        kings += p * s.child(a).returns()[0]
    assert kings == pytest.approx(1 / 3)


def test_seeded_chance_names_identical_cards_alike_too():
    """With seeded chance as well, Leduc's two copies of a rank give one information state."""
    _need(LEDUC_CORPUS)
    game = openspiel_game(LEDUC_CORPUS, chance="seed")
    cards: dict = {}
    for seed in range(40):
        s = game.new_initial_state()
        for b in seed.to_bytes(4, "big"):
            s.apply_action(b)
        cards.setdefault(s.information_state_string(0), set()).add(s.recycle_state().location(0, "iloc", "HAND")[0])
    assert sorted(map(sorted, cards.values())) == [[0, 3], [1, 4], [2, 5]]


def test_a_step_stops_at_the_card_it_must_draw():
    """A step that moves an undrawn card stops there (its draw is played before anything that
    follows): at Kuhn's first chance node one card has left the deck, not both."""
    _need(KUHN)
    s = openspiel_game(KUHN).new_initial_state()
    assert s.is_chance_node()

    def moves():
        return [e for e in s._core.log if type(e) is MoveEvent and e.action == "move"]

    assert len(moves()) == 1 and moves()[0].card in dict(s.chance_outcomes())
    s.apply_action(s.chance_outcomes()[0][0])
    assert len(moves()) == 2


def test_only_the_chance_driven_game_claims_an_information_state_tensor():
    # a seeded game's only tensor is the observation's, which merges information states
    _need(KUHN)
    assert openspiel_game(KUHN, chance="rules").get_type().provides_information_state_tensor
    assert not openspiel_game(KUHN, chance="seed").get_type().provides_information_state_tensor
