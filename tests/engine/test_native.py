"""The native engine (recycle/native) plays the Python engine's games, seed for seed.

A game written as a native module (C, built by tcc and gcc) and played with random players in machine code must end
every rollout exactly as ``random_rollout`` does: the same scores, steps, decisions, options
listed, and every card in the same place, for games/schwimmen.rcy, games/war.rcy,
games/go-fish.rcy and three corpus games (skipped when ``../shared/corpus/cardstock`` is absent). On top of it:

* ``simulate`` gives the same statistics natively as on Python, and for any number of threads;
* a game using a form the writer lacks is played by Python, with a note naming the form and its
  line, and the same statistics;
* the generated module is readable (named locations and storages, a ``play`` function), and a
  hostile file name enters it only as words of its docstring: compiled and run, it runs nothing;
* a rollout the native code stops (the step limit) is played again by Python: the same records.

Each game's module is built into a library at its first use (tcc: a fraction of a second);
this file builds six (the five games above and schwimmen under a hostile name). The suite points ``RECYCLE_CACHE_DIR``
at an empty folder (tests/conftest.py), so the compiles here use recycle's own cache folder
instead (``user_cache``): a second run loads the machine code and takes seconds. Only the
native modules go there; the games' bytecode stays in the suite's folder.
"""

from __future__ import annotations

import ast
import functools
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.engine.game import rollout_seed
from recycle.errors import StepLimitExceeded
from recycle.native import (
    NativeUnsupported,
    available,
    native_game,
    native_ready,
    native_source,
    rollout_records,
    why_not_native,
)
from recycle.native import engine as native_engine
from recycle.study.stats import simulate

from ..conftest import CORPUS, GAMES, tiny

pytestmark = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")

SEEDS = [rollout_seed(1, i) for i in range(20)]
MAX_STEPS = 100_000
# what differs between two runs of the same statistics: the timings, and which engine played
NOT_COMPARED = ("seconds", "rollouts_per_second", "engine", "threads")

# schwimmen in the fast suite (its build serves the simulate tests too); the others: slow
DIFFERENTIAL = [
    pytest.param(GAMES / "schwimmen.rcy", id="games/schwimmen"),
    pytest.param(GAMES / "war.rcy", id="games/war", marks=pytest.mark.slow),
    # groups held in a variable, cards moved out of views (each leaves the view)
    pytest.param(GAMES / "go-fish.rcy", id="games/go-fish", marks=pytest.mark.slow),
]
# the corpus games are the long sweep: slow, CI's later step
DIFFERENTIAL += [
    pytest.param(CORPUS / f"{name}.rcy", id=f"corpus/{name}", marks=pytest.mark.slow)
    for name in ("Hearts4", "KuhnPoker2", "LeducPoker2")
]


@contextmanager
def user_cache():
    """recycle's own cache folder (``~/.cache/recycle``, or ``$XDG_CACHE_HOME/recycle``) as
    ``RECYCLE_CACHE_DIR`` for a while: where ``recycle simulate`` keeps native modules. With
    no such folder (no home folder, or ``RECYCLE_NO_CACHE``), the suite's folder stays."""
    from recycle.lang.python import codecache

    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("RECYCLE_CACHE_DIR", raising=False)
        folder = codecache.cache_dir()
        mp.undo()
        if folder is not None:
            mp.setenv("RECYCLE_CACHE_DIR", str(folder))
        yield


def compiled(game, search: bool = False):
    """The game's native module (``search``: its search module), loaded (and compiled when
    needed) through recycle's own cache folder, its machine code made now. Later calls
    (``simulate``, look-ahead players) reuse it."""
    with user_cache():
        ng = native_game(game, search)
    ng.warm()
    return ng


@functools.cache
def load(path: Path):
    if not path.exists():
        pytest.skip(f"{path} is absent (the corpus folder {CORPUS})")
    return recycle.load(path)


def comparable(stats) -> dict:
    d = stats.to_dict()
    for key in NOT_COMPARED:
        d.pop(key)
    return d


def python_record(game, seed: int, max_steps: int):
    """The record ``simulate`` keeps of one Python rollout (recycle/study/stats.py), None for a
    rollout that hit the step limit."""
    try:
        s = game.random_rollout(seed, max_steps)
    except StepLimitExceeded:
        return None
    return (s.scores, s.decisions, s.options_total, s.team_of[:])


def assert_plays_as_python(game, seeds, scores, counts, places) -> None:
    """Each native rollout (``rollouts(..., places=True)``'s arrays) ended as Python's: no
    stop, the same scores, steps, decisions, options listed and every card's place."""
    for i, sd in enumerate(seeds):
        s = game.random_rollout(sd, MAX_STEPS)
        native = (
            int(counts[i, 0]),
            [int(v) for v in scores[i]],
            *(int(v) for v in counts[i, 1:4]),
            [int(v) for v in places[i]],
        )
        assert native == (0, list(s.scores), s.steps, s.decisions, s.options_total, [int(v) for v in s.card_loc])


# -- the same games ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", DIFFERENTIAL)
def test_native_rollouts_end_as_the_python_engine_s(path):
    game = load(path)
    ng = compiled(game)
    scores, counts, places = ng.rollouts(SEEDS, MAX_STEPS, game.max_work, places=True)
    assert scores.shape == (len(SEEDS), game.nplayers)
    assert counts.shape == (len(SEEDS), 5)
    assert places.shape == (len(SEEDS), len(game.card_attrs))
    for i, sd in enumerate(SEEDS):
        s = game.random_rollout(sd, MAX_STEPS)
        status, steps, decisions, options, _rounds = (int(v) for v in counts[i])
        native = (status, [int(v) for v in scores[i]], steps, decisions, options, [int(v) for v in places[i]])
        python = (0, list(s.scores), s.steps, s.decisions, s.options_total, [int(v) for v in s.card_loc])
        assert native == python, f"seed {sd}: native {native[:5]}, python {python[:5]}"
    # the seeds deal different games (the comparison above is not of one game twenty times)
    ends = {(tuple(a), tuple(b), tuple(c)) for a, b, c in zip(scores.tolist(), counts.tolist(), places.tolist())}
    assert len(ends) > 1


# -- simulate ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(GAMES / "schwimmen.rcy", id="games/schwimmen"),
        pytest.param(CORPUS / "Hearts4.rcy", id="corpus/Hearts4", marks=pytest.mark.slow),
    ],
)
def test_simulate_natively_gives_the_python_engine_s_statistics(path):
    game = load(path)
    compiled(game)
    native = simulate(game, 3000, seed=2, engine="native")
    python = simulate(game, 3000, seed=2, engine="reference")
    assert (native.engine, native.engine_note) == ("native", None)
    assert (python.engine, python.engine_note) == ("reference", None)
    assert native.finished == 3000 and native.decisions["max"] > 0
    assert comparable(native) == comparable(python)
    assert native.scores == python.scores and native.decision_counts == python.decision_counts
    assert native.winners == python.winners  # ties too: every winner, in seat order


def test_threads_share_the_rollouts_and_change_nothing():
    game = load(GAMES / "schwimmen.rcy")
    compiled(game)
    one = simulate(game, 3000, seed=2, engine="native", threads=1)
    two = simulate(game, 3000, seed=2, engine="native", threads=2)
    assert two.engine == one.engine == "native"
    assert comparable(two) == comparable(one)
    assert two.scores == one.scores and two.winners == one.winners
    seeds = [rollout_seed(3, i) for i in range(101)]  # not a multiple of the threads
    assert rollout_records(game, seeds, MAX_STEPS, threads=2) == rollout_records(game, seeds, MAX_STEPS)


# -- a game the writer cannot write --------------------------------------------------------------

# two players; before each turn the game remembers the stock's top card (a mem location and
# `remember`, which the native writer does not write: docs/native.md); the player then takes the
# top card into the hand, once two cards are remembered, or discards it
UNSUPPORTED = """;; a small game that remembers the cards it saw (at an index: not written natively)
(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK))
      (all player 'P (move (top (game iloc STOCK)) (top ('P iloc HAND))))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (do ((remember (top (game iloc STOCK)) (0 (game mem SEEN)))))
  (choice (
   ((> (size (game mem SEEN)) 1) (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))
   (move (top (game iloc STOCK)) (top (game vloc PILE))))))
 (scoring max (size ((current player) iloc HAND))))
"""
UNSUPPORTED_LINE = next(i for i, line in enumerate(UNSUPPORTED.splitlines(), 1) if "(remember " in line)


@pytest.mark.slow  # ~20 s; the fast suite steps every game of games/ natively (test_native_stepping.py)
def test_every_game_of_the_corpus_and_of_games_is_written_natively():
    """Writing the modules only (no compile): a form that stops being written, here or in a
    game such as Coup4 whose blocks of options take every path of the writer, fails here."""
    paths = sorted(GAMES.glob("*.rcy")) + (sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else [])
    stops = {p.stem: why_not_native(recycle.load(p)) for p in paths}
    assert {name: why for name, why in stops.items() if why} == {}
    assert "schwimmen" in stops and ("Coup4" in stops) == CORPUS.is_dir()


def test_a_game_the_writer_cannot_write_is_played_by_python(tmp_path):
    path = tmp_path / "remembering.rcy"
    path.write_text(UNSUPPORTED)
    game = recycle.load(path)
    note = why_not_native(game)
    assert note is not None and "(remember ...)" in note and f"(line {UNSUPPORTED_LINE})" in note, note
    with pytest.raises(NativeUnsupported):
        native_game(game)
    # "auto" stays on Python, and says why
    auto = simulate(game, 2000, seed=2, engine="auto")
    python = simulate(game, 2000, seed=2, engine="reference")
    assert (auto.engine, auto.engine_note) == ("reference", note)
    assert (python.engine, python.engine_note) == ("reference", None)
    assert comparable(auto) == comparable(python) and auto.scores == python.scores
    assert auto.decisions["max"] > 0 and 0 < auto.win_rate[0] < 1  # a game of choices and luck
    # asked for the native engine outright, the same
    native = simulate(game, 300, seed=2, engine="native")
    assert (native.engine, native.engine_note) == ("reference", note)
    assert comparable(native) == comparable(simulate(game, 300, seed=2, engine="reference"))


# -- the generated module ------------------------------------------------------------------------


def parsed(source: str):
    """(docstring, the rest of the module as an AST dump)."""
    tree = ast.parse(source)
    return ast.get_docstring(tree, clean=False), ast.dump(ast.Module(body=tree.body[1:], type_ignores=[]))


def test_the_native_module_is_readable():
    source = native_source(load(GAMES / "schwimmen.rcy"))
    ast.parse(source)
    for words in ("LOC_iloc_STOCK", "LOC_iloc_HAND", "STO_PASS", "def play(", "# line 33: (swap"):
        assert words in source, words
    from recycle.native.c.cmodule import module_c

    c = module_c(source, "schwimmen")  # the C keeps the names and the game's lines
    for words in ("LOC_iloc_STOCK", "ints.d[STO_PASS]", "static void play(", "/* line 33: (swap"):
        assert words in c, words


HOSTILE_NAMES = [
    'x"""; import os; os.system("touch pwned") #.rcy',
    "k''';open('pwned','w');'''.rcy",
    "new\nline;open('pwned','w').rcy",
    "back\\slash\\.rcy",
    "sep\u2028line;open('pwned','w').rcy",
    "x -*- coding: utf-7 -*-.rcy",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_a_hostile_name_is_only_words_of_the_native_module_s_docstring(name):
    text = (GAMES / "schwimmen.rcy").read_text()
    plain_doc, plain_rest = parsed(native_source(recycle.loads(text, "plain.rcy")))
    source = native_source(recycle.loads(text, name))
    doc, rest = parsed(source)
    assert doc == plain_doc.replace("plain.rcy", name)
    assert rest == plain_rest
    assert source.count("pwned") == ("pwned" in name)  # the docstring's line, escaped, and no other


def test_a_hostile_file_name_compiled_and_run_natively_runs_no_code(tmp_path, monkeypatch):
    name = HOSTILE_NAMES[0]
    try:
        (tmp_path / name).write_bytes((GAMES / "war.rcy").read_bytes())
    except OSError as exc:
        pytest.skip(f"this file system refuses the name {name!r}: {exc}")
    monkeypatch.chdir(tmp_path)  # where a name that ran would leave its file (and a relative name: a stable module)
    game = recycle.load(name)
    source = native_source(game)
    doc, rest = parsed(source)
    assert doc is not None and name in doc and source.count("pwned") == 1
    assert rest == parsed(native_source(load(GAMES / "war.rcy")))[1]
    ng = compiled(game)
    got = ng.rollouts(SEEDS, MAX_STEPS, game.max_work, places=True)
    plain = compiled(load(GAMES / "war.rcy")).rollouts(SEEDS, MAX_STEPS, game.max_work, places=True)
    assert all((a == b).all() for a, b in zip(got, plain, strict=True))
    assert simulate(game, 50, seed=1, engine="native").engine == "native"
    assert not (tmp_path / "pwned").exists()


# -- rollouts the native code stops --------------------------------------------------------------


def test_a_rollout_stopped_at_the_step_limit_is_played_again_by_python():
    game = load(GAMES / "schwimmen.rcy")
    ng = compiled(game)
    seeds = [rollout_seed(4, i) for i in range(60)]
    _, counts, _ = ng.rollouts(seeds, 5, game.max_work)
    assert (counts[:, 0] != 0).all()  # every one stopped natively: Python says what happened
    records = rollout_records(game, seeds, max_steps=5)
    assert records == [python_record(game, sd, 5) for sd in seeds]
    assert records == [None] * len(seeds)  # five steps end no game of Schwimmen
    # a limit some rollouts reach and others do not: both kinds, in their places
    steps = sorted(game.random_rollout(sd, MAX_STEPS).steps for sd in seeds)
    limit = steps[len(steps) // 2]
    records = rollout_records(game, seeds, max_steps=limit, threads=2)
    assert records == [python_record(game, sd, limit) for sd in seeds]
    assert None in records and any(r is not None for r in records)


# -- options listed by a dry run (recycle/lang/forms/items.py, compose) --------------------------

DRY_RUN = """(do ((shuffle (game iloc STOCK))))
 (stage player (end (> (game sto TURNS) 14))
  (inc (game sto TURNS))
  (choice (
   ;; draw, then lay any card of the hand (the one just drawn too): the options are listed
   ;; after the draw, on the state itself, then the state is put back
   (do ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
        (any ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE))))))
   ;; a block of single items, one option: the condition reads what the move did
   (do ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
        ((> (size ((current player) iloc HAND)) 2)
         (move (top ((current player) iloc HAND)) (top (game vloc PILE))))
        ((== (size ((current player) iloc HAND)) 0) (inc ((current player) sto EMPTY)))))
   ;; every card of the hand laid, one option, offered while the hand holds two or more
   ((> (size ((current player) iloc HAND)) 1)
    (all ((current player) iloc HAND) 'C (move 'C (top (game vloc PILE)))))
   ;; a number from a filtered range: 2 up to the hand's size
   (any (filter (range 0..(size ((current player) iloc HAND))) 'N (> 'N 1)) 'N
    (set ((current player) sto EMPTY) 'N))
   (turn pass))))"""


def test_options_listed_by_a_dry_run_are_the_python_engine_s():
    """A block whose items need the state the earlier ones leave (a draw, then a card of the
    hand) is listed natively by running it and putting the state back, as Python lists it; a
    listing that breaks a rule (drawing from an empty stock) stops natively, and Python plays
    that rollout again."""
    game = tiny(
        DRY_RUN,
        deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))",
        scoring="(scoring max ((current player) sto EMPTY))",
    )
    source = native_source(game)
    assert "dry_state(" in source and ", True)" in source
    ng = compiled(game)
    seeds = [rollout_seed(7, i) for i in range(40)]
    scores, counts, places = ng.rollouts(seeds, MAX_STEPS, game.max_work, places=True)
    finished = 0
    for i, sd in enumerate(seeds):
        try:
            s = game.random_rollout(sd, MAX_STEPS)
        except recycle.RecycleRuntimeError:
            assert counts[i, 0] != 0  # Python's listing broke a rule: so did the native one
            continue
        finished += 1
        native = (
            int(counts[i, 0]),
            [int(v) for v in scores[i]],
            *(int(v) for v in counts[i, 1:4]),
            [int(v) for v in places[i]],
        )
        assert native == (0, list(s.scores), s.steps, s.decisions, s.options_total, [int(v) for v in s.card_loc])
    assert 0 < finished < len(seeds)  # both kinds of ending were compared
    ok = [sd for sd in seeds if counts[seeds.index(sd), 0] == 0]
    assert rollout_records(game, ok, max_steps=MAX_STEPS) == [python_record(game, sd, MAX_STEPS) for sd in ok]
    # a rollout whose listing broke the rule: Python's positioned message
    with pytest.raises(recycle.RecycleRuntimeError, match=r"tiny.rcy:10:15: .*move from the empty location STOCK"):
        rollout_records(game, seeds, max_steps=MAX_STEPS)


# Coup4's and Simon's Cat's shapes: blocks of options with several items that fork, an item
# offering none passed over, an accusation of nobody (an empty option) dropped, an any of an
# any listing no empty option for a player with an empty hand
FORKS = """(stage player (end (== (size (game iloc STOCK)) 0))
  (choice (
   (any player 'P (do (
     ((== ('P sto LIED) 1) (any ('P iloc HAND) 'C (move 'C (top (game iloc STOCK)))))
     ((== ('P sto LIED) 0) (any ((current player) iloc HAND) 'C (move 'C (top (game iloc STOCK))))))))
   (do (
     ((== (size ((current player) iloc HAND)) 0) (set ((current player) sto LIED) 1))
     ((>= (size ((current player) iloc HAND)) 1) (set ((current player) sto LIED) 0))
     ((> (size (game iloc STOCK)) 2)
      (do ((move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
           (any player 'P ((< (size ('P iloc HAND)) 2)
             (any ('P iloc HAND) 'C (move 'C (top (game iloc DISCARD)))))))))))
   (do (((> (size (game iloc STOCK)) 1)
      (do ((repeat 2 (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))
           (any ((current player) iloc HAND) 'C (move 'C (top (game iloc DISCARD))))
           (any ((current player) iloc HAND) 'C (move 'C (top (game iloc DISCARD)))))))))
   (do (((> ((current player) sto LIED) 'TWO)
      (do ((any player 'P (any ('P iloc HAND) 'C (move 'C (bottom (game iloc DISCARD)))))
           (dec ((current player) sto LIED) 'THREE))))))
   (inc ((current player) sto LIED) 1)
   (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))))"""


def test_blocks_of_several_items_that_fork_list_the_python_engine_s_options():
    """A block whose items fork one after another is listed natively depth first, as Python's
    ``compose`` lists it (each branch's items run on the state and put back at a level of
    their own): the same games, seed for seed, card for card. A variable declared from
    constants ('THREE) is a constant natively, with the value Python works out."""
    game = tiny(
        FORKS,
        players=3,
        deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))",
        scoring="(scoring max ((current player) sto LIED))",
        declare="(declare 2 'TWO) (declare (+ 'TWO 1) 'THREE)",
    )
    assert game.scope.lookup("THREE") is not None and not hasattr(game.scope.lookup("THREE"), "value")
    source = native_source(game)
    assert "def dry_count" in source and "DRY_LEVELS = 3" in source
    ng = compiled(game)
    seeds = [rollout_seed(5, i) for i in range(30)]
    scores, counts, places = ng.rollouts(seeds, MAX_STEPS, game.max_work, places=True)
    assert_plays_as_python(game, seeds, scores, counts, places)


# mem locations (references to cards that lie elsewhere), the N topmost cards, a run of cards
MEMORY = """(do ((shuffle (game iloc STOCK))
     (set (game points RANKS) (((RANK : A) 1) ((RANK : B) 2) ((RANK : C) 3) ((RANK : D) 4) ((RANK : E) 5)))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (choice (
   (any (game iloc STOCK) 'C (do ((remember 'C (top (game mem SEEN))) (move 'C (top ((current player) iloc HAND))))))
   ((> (size (game mem SEEN)) 1)
    (do ((forget (bottom (game mem SEEN))) (remember (top (game iloc STOCK)) (bottom (game mem SEEN))))))
   ((>= (size (game mem SEEN)) 3)
    (do ((inc ((current player) sto SCORE) (size (run top 2 (game mem SEEN) using (game points RANKS))))
         (inc ((current player) sto SCORE) (size (filter (top 2 (game mem SEEN)) 'X (== (cardatt SUIT 'X) X))))
         (set ((current player) sto LAST) (score (top (top 3 (game mem SEEN))) using (game points RANKS)))
         (repeat all (forget (top (game mem SEEN))))
         (move (top (game iloc STOCK)) (top (game iloc DONE)))))))))"""


def test_mem_locations_the_topmost_cards_and_runs_play_as_in_python():
    """``remember`` puts a reference (the card stays where it lies), ``forget`` drops one, a
    ``repeat all`` of forgets empties the mem location; ``(top N ...)`` and ``(run ...)`` are
    views: the same games as Python's, seed for seed, card for card."""
    game = tiny(
        MEMORY,
        deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))",
        scoring="(scoring max (+ ((current player) sto SCORE) ((current player) sto LAST)))",
    )
    source = native_source(game)
    assert "put_reference(" in source and "drop_entry(" in source and "run_of(" in source
    ng = compiled(game)
    seeds = [rollout_seed(9, i) for i in range(40)]
    scores, counts, places = ng.rollouts(seeds, MAX_STEPS, game.max_work, places=True)
    assert len({tuple(int(v) for v in row) for row in scores}) > 3  # the scores differ from game to game
    assert_plays_as_python(game, seeds, scores, counts, places)


# LostCities2's, SpiteMalice2's, Coloretto4's, golf-six's and the Pairs games' shapes: an all of options over a
# list of names (written as a block, one item a name), a block of conditionals of which none may
# act (its empty option dropped), a computed repeat under a let in a block of options, a literal
# list of names naming storages, members of a family of locations named by a variable over a
# declared range and by an expression of one (the members the compile registered, from a table),
# tuples of cards of equal score (their number, the first group, one held in a variable, looped
# over), runs (NoThanks) and subsets (Cribbage2)
SHAPES = """(do ((shuffle (game iloc STOCK)) (all player 'P (repeat 4 (move (top (game iloc STOCK)) (top ('P iloc HAND)))))
     (set (game points RANKS) (((RANK : A) 1) ((RANK : B) 1) ((RANK : C) 2) ((RANK : D) 2) ((RANK : E) 3)))
     (set (game points SUITS) (((SUIT : X) 1) ((SUIT : Y) 2)))))
 (stage player (end (> (game sto TURNS) 24))
  (inc (game sto TURNS) 1)
  (choice (
   (any ((current player) iloc HAND) 'C (any 'COLORS 'L (move 'C (top (game vloc 'L)))))
   (do ((all 'COLORS 'L (do (((> (size (game vloc 'L)) 1)
                              (move (top (game vloc 'L)) (top ((current player) iloc HAND)))))))))
   (do ((inc ((current player) sto DRAWS) 1)
        (let (- 3 (size ((current player) iloc HAND))) 'N
          ((and (> 'N 0) (>= (size (game iloc STOCK)) 'N))
           (repeat 'N (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))))))
   (any 'SLOTS 'S ((> (size ((current player) iloc HAND)) 0)
     (move (top ((current player) iloc HAND)) (top ((current player) vloc PILE 'S)))))
   (any (range 1..2) 'S ((> (size ((current player) vloc PILE (+ 'S 1))) 0)
     (move (top ((current player) vloc PILE (+ 'S 1))) (top ((current player) vloc PILE 'S)))))
   ((> (size (tuples 2 ((current player) iloc HAND) using (game points RANKS))) 0)
    (move (actual (top (top (tuples 2 ((current player) iloc HAND) using (game points RANKS))))) (top (game vloc DONE))))
   (let (tuples 2 ((current player) iloc HAND) using (game points RANKS)) 'PAIRS
     ((> (size 'PAIRS) 1) (move (actual (top 'PAIRS)) (top (game vloc DONE)))))
   (all (tuples 3 ((current player) iloc HAND) using (game points RANKS)) 'T
     (move (actual (bottom 'T)) (top ((current player) vloc PILE 1))))
   ((> (size (runs all 2 ((current player) iloc HAND) using (game points RANKS))) 1)
    (move (actual (top (bottom (runs all 2 ((current player) iloc HAND) using (game points RANKS)))))
          (top (game vloc DONE))))))
  (all (runs all 1 ((current player) iloc HAND) using (game points RANKS)) 'R
    (set ((current player) sto TRAIL)
         (% (+ (* ((current player) sto TRAIL) 3) (score (top 'R) using (game points SUITS))) 1000003)))
  (all (subsets ((current player) iloc HAND)) 'S
    ((== (sum 'S using (game points RANKS)) 3)
     (set ((current player) sto TRAIL)
          (% (+ (* ((current player) sto TRAIL) 5) (sum 'S using (game points SUITS))) 1000003))))
  (all (runs largest 1 ((current player) iloc HAND) using (game points RANKS)) 'R
    ((> (size 'R) 1) (inc ((current player) sto RUNS) (score (min 'R using (game points RANKS)) using (game points RANKS)))))
  (all (FIRST, SECOND) 'PLACE (inc ((current player) sto 'PLACE) (size ((current player) iloc HAND)))))"""


def test_alls_of_options_over_names_repeats_families_and_group_lists_play_as_in_python():
    game = tiny(
        SHAPES,
        deck="(deck (RANK (A, B, C, D, E)) (SUIT (X, Y)))",
        declare="(declare (RED, BLUE) 'COLORS) (declare (range 1..3) 'SLOTS)",
        scoring="(scoring max (+ ((current player) sto FIRST) ((current player) sto DRAWS) "
        "((current player) sto RUNS) ((current player) sto TRAIL) (size ((current player) vloc PILE 1))))",
    )
    # registered by the compile, before any play, in the order of each list (GolfSix4's and
    # LostCities2's locations and storages named by a variable over a list of names)
    assert [n for k, n in game.layout.loc_base if k == "vloc"] == [
        "RED",
        "BLUE",
        "PILE[1]",
        "PILE[2]",
        "PILE[3]",
        "DONE",
    ]
    assert list(game.layout.storage_names("sto"))[-2:] == ["FIRST", "SECOND"]
    source = native_source(game)
    # the all written once per name, the literal list's storages read by the name's id
    assert "(size (game vloc RED)) 1)" in source and "(size (game vloc BLUE)) 1)" in source
    assert "LOCS_NAMED_1[" in source and "STORAGES_NAMED_" in source and "(how many acted)" in source
    assert "LOCS_MEMBER_1 = np.array([" in source and "# PILE[1..3]" in source
    assert "tuples_of(" in source and "group_at(" in source and "runs_groups(" in source and "subsets_of(" in source
    # the dry runs written twice (listing, running) are written once (recycle/native/merge.py)
    listed = source.split("written once:\n")[1].split("\n\n")[0].splitlines()
    assert listed and all(line.startswith("#   dry_run_") and line.split()[1] + "(" not in source for line in listed)
    ng = compiled(game)
    # the module's machine code is seen in the cache folder (what --workers and a new process load)
    with user_cache():
        assert f"def {native_engine.ENTRY}(" in source
        assert native_ready(game, on_disk=True) == (native_engine.cache_folder() is not None)
    seeds = [rollout_seed(13, i) for i in range(40)]
    scores, counts, places = ng.rollouts(seeds, MAX_STEPS, game.max_work, places=True)
    assert len({tuple(int(v) for v in row) for row in scores}) > 10
    assert_plays_as_python(game, seeds, scores, counts, places)


def test_load_with_the_native_engine_plays_rollouts_natively_at_once():
    """``recycle.load(path, engine="native")`` makes the machine code when it loads: simulate
    then plays natively however few the games, with the Python engine's statistics; a game
    the writer cannot write is refused with the form it stops at."""
    with user_cache():
        game = recycle.load(GAMES / "war.rcy", engine="native")
    assert game.engine == "reference"  # stepped from outside by the reference interpreter
    native = simulate(game, 50, seed=3)
    assert native.engine == "native"
    assert comparable(native) == comparable(simulate(recycle.load(GAMES / "war.rcy"), 50, seed=3, engine="reference"))
    with pytest.raises(NativeUnsupported, match="remember"):
        recycle.loads(UNSUPPORTED, "remembers.rcy", engine="native")


def test_how_each_form_offers_options_is_registered_by_the_form():
    """A choice's options are walked through ``Offer``s registered by the class of the form's
    node (forms_options.py); an action offers itself once, a loop of options none."""
    from recycle.lang.nodes import actions, flow
    from recycle.native import forms_options as fo
    from recycle.native import module  # noqa: F401 - every writer registered (a block's: forms_blocks.py)

    assert set(fo.OFFERS) == {flow.Offer, flow.Loop, flow.Let, flow.Do, flow.When, actions.Repeat, actions.RepeatAll}
    move, each = (
        node_form("(move (top (game iloc A)) (top (game iloc B)))"),
        node_form("(any (game iloc A) 'C (move 'C (top (game iloc B))))"),
    )
    assert fo.offer_of(move) is fo.ACTION and fo.is_static(move) and fo.is_single(move)
    assert fo.offer_of(each) is fo.OFFERS[flow.Offer] and not fo.is_single(each)
    assert fo.is_single(node_form("((== 1 1) (repeat all (move (top (game iloc A)) (top (game iloc B)))))"))


def node_form(text: str):
    """The node of one item written alone (no variable bound around it)."""
    from recycle.lang.forms import flow as _registered  # noqa: F401 - the registry sealed
    from recycle.lang.nodes.flow import Elaborator
    from recycle.lang.nodes.sexpr import Scope

    return Elaborator().item(parsed_form(text), Scope())


def parsed_form(text: str):
    from recycle.lang.syntax.reader import parse_text

    return parse_text(text, "form.rcy").forms[0]
