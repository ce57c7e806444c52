"""Players that cannot peek, by construction (issue 25, items 13-15).

What a player of someone else's receives through the runner (``choose(observation,
options, rng)``) and what the learning environments put in ``info`` must not let it read a
card it may not see, the game's state or its generator (the future): not in the option
keys, not in the words, not through any attribute. Every test here uses only the player
protocol, so it ran against the code before the fix too (and failed there).
"""

import gc
import random
import types
import warnings

import pytest

import recycle
from recycle.engine.game import loads
from recycle.engine.runner import play_out

from ..conftest import CORPUS, GAMES, requires_corpus, sweep_marks
from ..helpers import blackjack

# each player's hand lies face down, even to its owner (hloc): it plays a card blind
BLIND = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (SUIT (S, H)) (RANK (A, K, Q, J)))))
 (do (
  (shuffle (game iloc STOCK))
  (repeat 3 (move (top (game iloc STOCK)) (top ((current player) hloc HAND))))
  (cycle current (next player))
  (repeat 3 (move (top (game iloc STOCK)) (top ((current player) hloc HAND))))
  (cycle current (next player))
  (set (game points VAL) (((RANK : A) 4) ((RANK : K) 3) ((RANK : Q) 2) ((RANK : J) 1)))))
 (stage player (end (all player 'P (> (size ('P vloc PLAY)) 0)))
  (choice ((any ((current player) hloc HAND) 'C (move 'C (top ((current player) vloc PLAY)))))))
 (scoring max (sum ((current player) vloc PLAY) using (game points VAL))))"""


# blackjack-like: "hit" moves the face-down stock's top card into the hand (face up) and
# then sets TOTAL from the hand: the total before choosing would name the hidden card
class _Got(Exception):
    pass


class _Capture:
    """A player of someone else's: stops the game at its first real decision with what it got."""

    needs_view = True

    def choose(self, observation, options, rng):
        raise _Got(observation, options)


def received(state):
    """What a custom player receives at the decision ``state`` waits at (two or more options),
    through the runner, on a copy."""
    t = state.clone()
    try:
        play_out(t, [_Capture()] * state.game.nplayers, random.Random(0))
    except _Got as got:
        return got.args
    raise AssertionError("no decision")


def decisions(game, seed, limit=60):
    """The states at the real decisions of a random game (copies), at most ``limit``."""
    s = game.new_state(seed=seed, track=True)
    draw = random.Random(seed).random
    out = []
    while not s.is_terminal() and len(out) < limit:
        n = s.num_options()
        if n > 1:
            out.append(s.clone(track=True))
        s.apply(int(draw() * n) if n > 1 else 0)
    return out


def hidden_from(state, p):
    """The cards player ``p`` may not see where they lie now."""
    obs = state.observation(p)
    out = set()
    for i, lst in enumerate(state.locs):
        if i < len(state.game.layout.infos) and not obs.can_see(i):
            out.update(int(c) for c in lst)
    return out


def card_ids_in(key):
    """The card ids an option's key names as cards (``("Card", id)``, also inside lists)."""
    found = []

    def walk(x):
        if isinstance(x, tuple):
            if len(x) == 2 and x[0] == "Card":
                found.append(x[1])
            for y in x:
                walk(y)

    walk(key)
    return found


# -- 13: keys ------------------------------------------------------------------------------------


def test_a_player_picking_blind_cannot_read_its_hidden_hand_from_the_keys():
    g = loads(BLIND)
    for seed in range(5):
        for s in decisions(g, seed):
            p = s.current_player()
            hidden = hidden_from(s, p)
            _, options = received(s)
            for o in options:
                assert not set(card_ids_in(o.key)) & hidden, (seed, o.key)
                assert all(c is None for c in o.cards)
            # the keys are where the cards lie, not which they are: the same in any re-deal
            world = s.observation(p).sample_world(random.Random(seed))
            assert [o.key for o in received(world)[1]] == [o.key for o in options]


# -- 14: nothing reachable ---------------------------------------------------------------------


def reachable(*roots):
    """Every object reachable from ``roots`` through attributes, ``__dict__``, ``__slots__``,
    closures and ``gc.get_referents`` (classes and modules are not followed: they are code)."""
    seen, out, todo = set(), [], list(roots)
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (type, types.ModuleType)):
            continue
        seen.add(id(x))
        out.append(x)
        todo.extend(gc.get_referents(x))
        for name in getattr(type(x), "__slots__", ()):
            if hasattr(x, name):
                todo.append(getattr(x, name))
        if isinstance(x, types.FunctionType):
            todo.extend(c.cell_contents for c in x.__closure__ or () if c.cell_contents is not None)
    return out


def assert_nothing_hidden_reachable(state, p, *roots):
    """No state, generator, code or card object of the state is reachable from ``roots``, and
    no list or set reachable holds a card ``p`` may not see (nor knows the place of)."""
    from recycle.engine.state import State
    from recycle.lang.forms.values import Card

    hidden = hidden_from(state, p) - set(state.observation(p).known_locations())
    for x in reachable(*roots):
        assert not isinstance(x, State), "the state is reachable"
        assert not isinstance(x, random.Random), "a generator is reachable"
        assert not isinstance(x, (types.FunctionType, types.MethodType, types.CellType, types.CodeType)), (
            f"code is reachable: {x!r}"
        )
        assert not isinstance(x, Card), "a card object of the state is reachable"
        if isinstance(x, (list, set, frozenset)):
            assert not any(type(c) is int and c in hidden for c in x), f"a hidden card id in {x!r}"


@pytest.mark.parametrize(
    "path",
    [
        GAMES / "schwimmen.rcy",
        pytest.param(CORPUS / "Hearts4.rcy", marks=requires_corpus()),
        GAMES / "crazy-eights.rcy",
    ],
    ids=lambda p: p.stem,
)
def test_no_state_generator_or_hidden_card_is_reachable_from_what_a_player_receives(path):
    g = recycle.load(path)
    for s in decisions(g, 1, limit=8)[::2]:
        p = s.current_player()
        observation, options = received(s)
        assert_nothing_hidden_reachable(s, p, observation, options)


def test_the_environments_info_holds_plain_words_that_tell_nothing_hidden():
    pytest.importorskip("pettingzoo")
    from recycle.env.petting import pettingzoo_env

    for game, deal in [(g, d) for g in (blackjack(), recycle.load(GAMES / "schwimmen.rcy")) for d in range(3)]:
        env = pettingzoo_env(game, seed=1, describe=True)
        env.reset(seed=deal)
        for _, _agent in zip(range(20), env.agent_iter()):
            obs, _reward, term, trunc, info = env.last()
            s = env.state
            if s is not None and not s.is_terminal() and info:
                assert_nothing_hidden_reachable(s, s.current_player(), info, obs)
                assert all(isinstance(t, str) for t in info["options"])
                # a hit names neither the card it draws nor the total it makes
                assert all(" to " not in t.partition("set TOTAL")[2] for t in info["options"]), info
            legal = [a for a, ok in enumerate(obs["action_mask"]) if ok]
            env.step(None if term or trunc else legal[deal % len(legal)])


@pytest.mark.parametrize("chance", ["seed", "rules"])
def test_openspiel_action_strings_name_no_hidden_card(chance):
    pytest.importorskip("pyspiel")
    from recycle.env.spiel import openspiel_game

    game = openspiel_game(blackjack(), chance=chance)
    state = game.new_initial_state()
    rng = random.Random(3)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    s = state.recycle_state()
    p = s.current_player()
    strings = [state.action_to_string(p, a) for a in state.legal_actions()]
    top = s.game.card_name(int(s.locs[s.game.layout.find("game", "iloc", "STOCK")][-1]))
    assert all(top not in t and " to " not in t.partition("set TOTAL")[2] for t in strings), strings


def test_describe_and_render_of_a_draw_from_a_face_down_stock_do_not_name_the_card():
    g = blackjack()
    stock = g.layout.find("game", "iloc", "STOCK")
    for seed in range(10):
        s = g.new_state(seed=seed, track=True)
        top = g.card_name(int(s.locs[stock][-1]))
        _, options = received(s)
        assert options  # else nothing below is checked
        for o in options:
            for text in (o.describe(), o.render()):
                assert top not in text, (seed, text)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                revealed = (o.describe(None), o.render(None))
            assert all(top not in t for t in revealed), (seed, revealed)
            with pytest.warns(DeprecationWarning):  # a player sees options as their chooser only
                o.describe(None)


# -- 15: words ---------------------------------------------------------------------------------


def test_the_words_of_a_hit_do_not_tell_the_total_it_would_make():
    g = blackjack()
    for seed in range(10):
        s = g.new_state(seed=seed, track=True)
        _, options = received(s)
        hit = [o.describe() for o in options if "move" in o.describe()]
        assert hit and all("set TOTAL(P0)" in t for t in hit)
        assert all(" to " not in t.partition("set TOTAL(P0)")[2] for t in hit), hit
        assert any("set DONE(P0) to 1" in o.describe() for o in options)  # a value known before: told


def _corpus_and_games():
    return sorted(CORPUS.glob("*.rcy")) + sorted(GAMES.glob("*.rcy"))


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, id=f"{p.parent.name}/{p.stem}", marks=sweep_marks(p) if p.parent == CORPUS else [])
        for p in _corpus_and_games()
    ],
)
def test_options_are_the_same_in_the_true_state_and_in_worlds_the_chooser_cannot_tell_from_it(path):
    """At every decision of a few random games of every game of the corpus and games/, the
    words, the cards seen and the keys of the options are those of a world sampled from the
    chooser's information (when that world offers as many options)."""
    differ = []
    g = recycle.load(path)
    for seed in range(3):
        try:
            states = decisions(g, seed, limit=25)
        except recycle.RecycleRuntimeError:
            continue
        for k, s in enumerate(states):
            p = s.current_player()
            try:
                world = s.observation(p).sample_world(random.Random(k))
                if world.num_options() != s.num_options():
                    continue
                mine, theirs = received(s)[1], received(world)[1]
            except recycle.RecycleRuntimeError:
                continue
            for a, b in zip(mine, theirs):
                if (a.describe(), a.render(), list(a.cards), a.key) != (b.describe(), b.render(), list(b.cards), b.key):
                    differ.append(
                        f"{path.name} seed {seed} decision {k}: {a.describe()!r} / {b.describe()!r}; "
                        f"{list(a.cards)} / {list(b.cards)}; {a.key} / {b.key}"
                    )
                    break
    assert not differ, "\n".join(differ[:20])


def test_the_environments_option_observations_are_the_same_in_worlds_the_chooser_cannot_tell_apart():
    """PettingZoo's ``option_observations`` (``EnvSpec.after_vectors``): what the agent would
    see after each option must not tell the total a hit makes (nor anything else hidden)."""
    pytest.importorskip("gymnasium")
    import numpy as np

    from recycle.env.spec import spec_for

    for game in (blackjack(), recycle.load(GAMES / "schwimmen.rcy")):
        spec = spec_for(game, None, "win", 100_000)
        for seed in range(4):
            for k, s in enumerate(decisions(game, seed, limit=6)):
                p = s.current_player()
                world = s.observation(p).sample_world(random.Random(k))
                if world.num_options() == s.num_options():
                    assert np.array_equal(spec.after_vectors(s, p), spec.after_vectors(world, p)), (seed, k)
