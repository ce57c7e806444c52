"""Two engines, one language: the reference interpreter is the oracle, and it agrees with itself.

The reference interpreter (``recycle.load``: the closures of recycle/lang/forms) defines the
language: exact positioned messages, visibility tracking. The native engine (recycle/native)
must end every random rollout of every game of ``games/`` as it does: the same scores, steps,
decisions, options listed and every card's place (``test_native_plays_the_reference_s_games``;
tests/engine/test_native.py adds corpus games, statistics and threads). It is skipped without
the native engine (NumPy, a C compiler).

The reference's own ways of playing must be one game. Every game of ``games/`` and of the
shared corpus (``../shared/corpus/cardstock``, skipped when absent) is played with random
players for ``len(SEEDS)`` seeds three ways — watched (``on_decision``), unwatched ``play``
and ``random_rollout`` — which must agree on

* every decision: (player, number of options, index chosen), seen through ``on_decision``;
* the counters: decisions, options listed in total, steps, the history of real choices;
* where every card ends: ``state.card_loc`` and the order of every ``state.locs`` list;
* the scores and winners;
* and, when the game breaks a rule (``RecycleError``) or runs too long
  (``StepLimitExceeded``), the same error class and message, after the same decisions.

The same check runs on games mutated by the fuzzer (``recycle/study/fuzzing.py``), a few
seeds each, and a mutated game loads the same way twice. (Until issue 41 these compared the
generated-Python engine and the fast closures with the plain path, which is the reference
interpreter now; every message asserted then is asserted here on the reference.)

The stepped API (``new_state`` / ``legal_options`` / ``apply``) must play the same game as
``play`` when it draws exactly as the random player does, and ``State.clone`` must copy
everything that decides the rest of the game (cards, storages, turn order, the generator,
loop positions): the original and its clone, finished from identical random streams, end
identically, and playing on a clone leaves the original untouched.
"""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

import recycle
from recycle.engine.game import players_stream, rollout_seed

from recycle.study import fuzzing

from ..conftest import CORPUS, sweep_marks

HERE = Path(__file__).resolve()
GAMES_DIR = HERE.parents[2] / "games"
CORPUS_DIR = CORPUS

# with the test games of the newer dialect's forms (tests/lang/test_dialect.py)
GAME_FILES = sorted(GAMES_DIR.glob("*.rcy")) + sorted((HERE.parents[1] / "lang" / "dialect").glob("*.rcy"))
CORPUS_FILES = sorted(CORPUS_DIR.glob("*.rcy")) if CORPUS_DIR.is_dir() else []

SEEDS = range(20)
MAX_STEPS = 20_000  # every game of games/ and the corpus ends well within it (hearts: < 2,000 steps)

# a varied sample of the corpus for the (slower) stepped and clone tests
STEPPED_CORPUS = [
    "Agram4",
    "Coloretto4",
    "Coup4",
    "CrazyEights4",
    "Cribbage2",
    "GoFish2",
    "KuhnPoker2",
    "LAMAFull6",
    "LostCities2",
    "NoThanks5",
    "Schwimmen5",
    "Skittgube3",
]


def _params(files, prefix):
    # the corpus games beyond the fast sample are the long sweep (slow: CI's later step)
    return [pytest.param(p, id=f"{prefix}/{p.stem}", marks=sweep_marks(p) if prefix == "corpus" else []) for p in files]


def _corpus_params(names=None):
    files = CORPUS_FILES if names is None else [p for p in CORPUS_FILES if p.stem in names]
    if files:
        return _params(files, "corpus")
    return [pytest.param(None, id="corpus-absent")]


def _need(path):
    if path is None:
        pytest.skip(f"corpus folder {CORPUS_DIR} is absent")
    return path


ALL_GAMES = _params(GAME_FILES, "games") + _corpus_params()
STEPPED_GAMES = _params(GAME_FILES, "games") + _corpus_params(STEPPED_CORPUS)


# -- what is compared ------------------------------------------------------------------------


def places(state, history: bool = True) -> dict:
    """Everything about a finished (or stopped) state that the comparison covers.

    ``history`` is left out where only the places are compared (``random_rollout``,
    unwatched ``play``); ``test_random_play_keeps_the_history`` checks it."""
    out = {
        "decisions": state.decisions,
        "options_total": state.options_total,
        "steps": state.steps,
        "card_loc": [int(x) for x in state.card_loc],
        "locs": [[int(c) for c in lst] for lst in state.locs],
        "scores": None if state.scores is None else list(state.scores),
    }
    if history:
        out["history"] = list(state.history)
    return out


def without_history(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "history"}


def error_of(exc: recycle.RecycleError) -> tuple:
    return ("error", type(exc).__name__, canonical_message(str(exc)))


def canonical_message(text: str) -> str:
    """The message as compared between the paths: exactly as reported."""
    return text


def watched(game, seed: int, max_steps: int = MAX_STEPS) -> dict:
    """``play`` with random players and an ``on_decision`` watcher: the decision trace, and the
    final places, scores and winners (or the error and the state it stopped in)."""
    trace = []

    def on_decision(state, p, options, i):
        trace.append((p, len(options), i))

    try:
        r = game.play(seed=seed, max_steps=max_steps, on_decision=on_decision)
    except recycle.RecycleError as exc:
        partial = getattr(exc, "partial", None)
        return {
            "outcome": error_of(exc),
            "trace": trace,
            "state": places(partial.state) if partial is not None else None,
        }
    assert r.decisions == r.state.decisions and r.options_total == r.state.options_total
    assert r.scores == r.state.scores
    return {
        "outcome": ("ok", r.scores, r.winners, r.decisions, r.options_total, r.steps),
        "trace": trace,
        "state": places(r.state),
    }


def unwatched_play(game, seed: int, max_steps: int = MAX_STEPS):
    try:
        r = game.play(seed=seed, max_steps=max_steps)
    except recycle.RecycleError as exc:
        return error_of(exc)
    return ("ok", r.scores, r.winners, places(r.state, history=False))


def rollout(game, seed: int, max_steps: int = MAX_STEPS):
    try:
        s = game.random_rollout(seed, max_steps=max_steps)
    except recycle.RecycleError as exc:
        return error_of(exc)
    return ("ok", list(s.scores), s.winners(), places(s, history=False))


def history_of(trace) -> list[int]:
    """The choices a state keeps in ``history``: those made among two or more options."""
    return [i for _, n, i in trace if n > 1]


def compare_seed(game, seed: int, max_steps: int = MAX_STEPS) -> str:
    """Play ``seed`` the three ways and require one game; returns the outcome's kind."""
    where = f"{game.name} seed {seed}"
    a = watched(game, seed, max_steps)
    reference = unwatched_play(game, seed, max_steps)
    assert rollout(game, seed, max_steps) == reference, f"{where}: random_rollout differs from play"
    if a["outcome"][0] == "ok":
        assert reference[3] == without_history(a["state"]), f"{where}: watching the game changed it"
        assert a["state"]["history"] == history_of(a["trace"])
        assert a["state"]["decisions"] == len(a["trace"])
        return "ok"
    assert reference == a["outcome"], f"{where}: watching the game changed its error"
    return a["outcome"][1]


def load_game(path: Path):
    """The game, or None when it does not compile (its message then the same on a second load)."""
    try:
        return recycle.load(path)
    except recycle.RecycleError as exc:
        again = None
        try:
            recycle.load(path)
        except recycle.RecycleError as exc2:
            again = error_of(exc2)
        assert again == error_of(exc), f"{path.name}: loading twice differs"
        return None


# -- the native engine against the reference --------------------------------------------------

NATIVE_SEEDS = [rollout_seed(1, i) for i in range(20)]


@pytest.mark.parametrize("path", _params(sorted(GAMES_DIR.glob("*.rcy")), "games"))
def test_native_plays_the_reference_s_games(path):
    """Each native rollout ends as the reference's: no stop, the same scores, steps,
    decisions, options listed and every card's place."""
    from recycle.native import NativeUnsupported, available, why_not_native

    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    from .test_native import compiled

    game = recycle.load(path)
    if why_not_native(game) is not None:
        with pytest.raises(NativeUnsupported):
            compiled(game)
        pytest.skip(f"{path.name}: {why_not_native(game)}")
    scores, counts, where = compiled(game).rollouts(NATIVE_SEEDS, MAX_STEPS, game.max_work, places=True)
    for i, sd in enumerate(NATIVE_SEEDS):
        try:
            s = game.random_rollout(sd, MAX_STEPS)
        except recycle.StepLimitExceeded:
            assert int(counts[i, 0]) != 0, f"seed {sd}: the reference stops, the native engine does not"
            continue
        native = (
            int(counts[i, 0]),
            [int(v) for v in scores[i]],
            *(int(v) for v in counts[i, 1:4]),
            [int(v) for v in where[i]],
        )
        reference = (0, list(s.scores), s.steps, s.decisions, s.options_total, [int(v) for v in s.card_loc])
        assert native == reference, f"{path.name} seed {sd}: native {native[:5]}, reference {reference[:5]}"


# -- every game, every way of playing it ------------------------------------------------------


@pytest.mark.parametrize("path", ALL_GAMES)
def test_every_way_of_playing_gives_one_game(path):
    """Watched, unwatched and as a random rollout, every game plays as one game."""
    game = load_game(_need(path))
    if game is None:
        pytest.skip(f"{path.name} does not compile")
    outcomes = [compare_seed(game, seed) for seed in SEEDS]
    assert len(outcomes) >= 20


def test_random_play_keeps_the_history():
    game = recycle.load(GAMES_DIR / "schwimmen.rcy")
    want = game.play(seed=1).state.history
    assert want, "the game makes real choices"
    assert want == history_of(watched(game, 1)["trace"])
    assert game.random_rollout(1).history == want
    s = game.new_state(seed=1)
    s.play_randomly(players_stream(1).random)
    assert s.history == want  # the look-ahead's inline random play draws as the random player


EMPTY_MOVES = {
    "(top L) of a game location": "(do ((move (top (game vloc X)) (top (game vloc Y)))))",
    "(top L) of a player location": "(do ((all player 'P (move (top ('P vloc X)) (top (game vloc Y))))))",
    "(top L) under repeat": "(do ((repeat 2 (move (top (game vloc X)) (top (game vloc Y))))))",
    "(bottom L)": "(do ((move (bottom (game vloc X)) (top (game vloc Y)))))",
}


@pytest.mark.parametrize("flow", list(EMPTY_MOVES.values()), ids=list(EMPTY_MOVES))
def test_a_move_from_an_empty_location_fails_with_its_position(flow):
    text = f"""(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))
 {flow}
 (scoring max 0))"""
    game = recycle.loads(text, "empty.rcy")
    messages = []
    for play in (lambda: game.play(seed=0), lambda: game.random_rollout(0)):
        with pytest.raises(recycle.RecycleError) as info:
            play()
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "move from the empty location X" in messages[0] and "in the form (" in messages[0]
    assert re.match(r"empty\.rcy:2:\d+: runtime error: move from the empty location X", messages[0]), messages[0]


# games stopped by a tiny step limit: the limit must strike at the same point every way
STEP_LIMITED = [
    ("games/hearts", 150),
    ("games/schwimmen-lives", 40),
    ("games/schwimmen", 8),
    ("corpus/CrazyEights4", 60),
    ("corpus/Skittgube3", 80),
    ("corpus/Coup4", 30),
]


@pytest.mark.parametrize("name, max_steps", STEP_LIMITED, ids=[n for n, _ in STEP_LIMITED])
def test_the_step_limit_strikes_alike(name, max_steps):
    folder, stem = name.split("/")
    base = GAMES_DIR if folder == "games" else CORPUS_DIR
    path = base / f"{stem}.rcy"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    game = recycle.load(path)
    outcomes = [compare_seed(game, seed, max_steps=max_steps) for seed in SEEDS]
    assert "StepLimitExceeded" in outcomes, f"{name}: max_steps={max_steps} never stops the game"


# -- mutated games ---------------------------------------------------------------------------
#
# Hypothesis is used only as a deterministic generator here (``derandomize=True``): the first
# FUZZ_GAMES distinct mutations that compile are collected once, then each
# is compared like a corpus game (FUZZ_SEEDS seeds), as its own test ``fuzz-NN``.

FUZZ_GAMES = 24
FUZZ_DRAWS = 400  # at most this many mutated inputs are drawn; about one in five compiles
FUZZ_SEEDS = range(3)


_BYTES_DIR: list = []  # one temporary folder for the session (removed at exit)


def load_data(data):
    """A mutated input (text or bytes) compiled, or its load error as ``error_of`` gives it.

    Bytes are loaded from a file, always the same path, since the file name is part of every
    error message of the game (two loads must name the same file)."""
    if isinstance(data, bytes):
        if not _BYTES_DIR:
            _BYTES_DIR.append(tempfile.TemporaryDirectory(prefix="recycle-diff-"))
        path = Path(_BYTES_DIR[0].name) / fuzzing.FILENAME
        path.write_bytes(data)
        try:
            return recycle.load(path)
        except recycle.RecycleError as exc:
            return error_of(exc)
    try:
        return recycle.loads(data, fuzzing.FILENAME)
    except recycle.RecycleError as exc:
        return error_of(exc)


_FUZZED: list = []


def fuzzed_games() -> list:
    """[(description, data)]: distinct mutated games that compile, drawn once per session."""
    if _FUZZED:
        return _FUZZED
    seen: set = set()

    @settings(
        max_examples=FUZZ_DRAWS, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
    )
    @given(fuzzing.mutated_inputs())
    def draw(case):
        desc, data = case
        key = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        if len(_FUZZED) >= FUZZ_GAMES or key in seen or desc.endswith(": unchanged"):
            return  # enough; a duplicate; or a plain corpus game (tested above)
        seen.add(key)
        if not isinstance(load_data(data), tuple):
            _FUZZED.append((desc, data))

    draw()
    return _FUZZED


@pytest.mark.parametrize("k", range(FUZZ_GAMES), ids=[f"fuzz-{k:02d}" for k in range(FUZZ_GAMES)])
def test_mutated_games_play_as_one_game_every_way(k):
    games = fuzzed_games()
    assert len(games) == FUZZ_GAMES, f"only {len(games)} of {FUZZ_DRAWS} mutated inputs compiled"
    desc, data = games[k]
    game = load_data(data)
    game.name = f"fuzz-{k:02d} ({desc})"
    for seed in FUZZ_SEEDS:
        compare_seed(game, seed, max_steps=fuzzing.MAX_STEPS)


def test_mutated_games_fail_to_load_alike():
    """Mutated inputs that do not compile fail with the same message every time."""
    failures = []

    @settings(max_examples=60, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(fuzzing.mutated_inputs())
    def check(case):
        desc, data = case
        first, second = load_data(data), load_data(data)
        if isinstance(first, tuple) or isinstance(second, tuple):
            assert first == second, f"{desc}: loading differs: {first} then {second}"
            failures.append(desc)

    check()
    assert len(failures) >= 20


# -- the stepped API ---------------------------------------------------------------------------

STEPPED_SEEDS = range(10)


def step_randomly(state, draw, upto: int | None = None, by_option: bool = True) -> None:
    """Drive ``state`` with ``legal_options``/``apply`` as the random player chooses: draw
    ``int(draw() * n)`` only when there are n > 1 options; stop after ``upto`` decisions."""
    k = 0
    while not state.is_terminal() and (upto is None or k < upto):
        options = state.legal_options()
        n = len(options)
        assert n == state.num_options() and n > 0
        assert [o.index for o in options] == list(range(n))
        i = int(draw() * n) if n > 1 else 0
        state.apply(options[i] if by_option else i)
        k += 1


def finished(state) -> dict:
    assert state.is_terminal()
    assert state.legal_options() == [] and state.num_options() == 0
    out = places(state)
    out["returns"] = state.returns()
    out["winners"] = state.winners()
    return out


@pytest.mark.parametrize("path", STEPPED_GAMES)
def test_stepping_plays_the_same_game_as_play(path):
    game = recycle.load(_need(path))
    for seed in STEPPED_SEEDS:
        where = f"{game.name} seed {seed}"
        r = game.play(seed=seed, max_steps=MAX_STEPS)
        s = game.new_state(seed=seed, max_steps=MAX_STEPS)
        step_randomly(s, players_stream(seed).random, by_option=seed % 2 == 0)
        got = finished(s)
        assert got["returns"] == r.scores, where
        assert got["winners"] == r.winners, where
        assert without_history(got) == {**places(r.state, history=False), "returns": r.scores, "winners": r.winners}, (
            where
        )
        # the choices stepped are those a watched play makes
        assert got["history"] == history_of(watched(game, seed)["trace"]), where


CLONE_SEEDS = range(3)


def checkpoints(total: int) -> list[int]:
    return sorted({0, 1, total // 3, total // 2, (2 * total) // 3, max(total - 1, 0)})


@pytest.mark.parametrize("path", STEPPED_GAMES)
def test_a_clone_finishes_like_the_original(path):
    """At several decisions: clone, finish original and clone from identical random streams;
    they must end identically. Then a clone played on must not disturb the original."""
    game = recycle.load(_need(path))
    for seed in CLONE_SEEDS:
        total = game.play(seed=seed, max_steps=MAX_STEPS).decisions
        for k in checkpoints(total):
            s = game.new_state(seed=seed, max_steps=MAX_STEPS)
            step_randomly(s, players_stream(seed).random, upto=k)
            if s.is_terminal():
                continue
            where = f"{game.name} seed {seed} decision {k}"
            if k % 2:  # options listed (and cached) before the clone, or not
                s.legal_options()
            before = places(s)
            player, nopts = s.current_player(), s.num_options()
            keys = [o.key for o in s.legal_options()]

            # independence: play a clone on (another option, then to the end), the original stays put
            other = s.clone()
            assert places(other) == before and other.current_player() == player
            assert [o.key for o in other.legal_options()] == keys, where
            other.apply(nopts - 1)
            other.play_randomly(random.Random(-1).random)
            assert other.is_terminal()
            assert places(s) == before, f"{where}: playing a clone changed the original"
            assert s.current_player() == player and s.num_options() == nopts
            assert [o.key for o in s.legal_options()] == keys, where

            # equivalence: the clone (and a clone of a clone) end exactly like the original
            c = s.clone()
            cc = c.clone()
            x = 1000 * seed + k
            for state in (s, c, cc):
                state.play_randomly(random.Random(x).random)
            want = finished(s)
            assert finished(c) == want, f"{where}: the clone ends differently"
            assert finished(cc) == want, f"{where}: the clone of the clone ends differently"


BIG_DECK = (
    "(deck (A (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) (B (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) "
    "(C (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) (D (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)) (E (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)))"
)


@pytest.mark.parametrize(
    "body, outcome",
    [
        ("(repeat all (move (top (game iloc STOCK)) (top (game iloc PILE))))", "ok"),
        (
            "(repeat (size (game iloc STOCK)) (move (top (game iloc STOCK)) (top (game iloc PILE))))",
            "RecycleRuntimeError",
        ),
    ],
)
def test_more_moves_than_max_repeat(body, outcome):
    """``repeat all`` moves every card the location holds — 120,000, more than MAX_REPEAT —
    one by one; ``repeat N`` over MAX_REPEAT is refused."""
    from recycle.lang.forms.items import MAX_REPEAT

    text = (
        f"(game (setup (create players 2) (create deck (game iloc STOCK) {BIG_DECK}))\n"
        f" (do ({body}))\n (scoring max (size (game iloc PILE))))"
    )
    game = recycle.loads(text, "all.rcy")
    assert compare_seed(game, 0) == outcome
    if outcome == "ok":
        assert game.play(seed=0).scores == [120_000, 120_000] and MAX_REPEAT < 120_000
    else:
        with pytest.raises(recycle.RecycleError, match=f"repeat 120000 times is more than the limit of {MAX_REPEAT}"):
            game.play(seed=0)
