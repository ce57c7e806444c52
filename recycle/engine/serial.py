"""Saving a game in progress: pickling a ``State`` (and, through it, OpenSpiel's states).

A state is saved as its game (the ``.rcy`` text, its file name, the engine and the work
budget it was loaded with), its seed, its step and work limits, and the decisions applied
so far; loading it plays the same game again from the same seed through the same decisions.

Why replay rather than a copy of the state's data: a state in progress waits inside the
compiled game (its frames and its waiting choice are the game's closures, or functions of
its generated code), which cannot be pickled and only mean something in the process that
compiled them. A game is deterministic given its seed and its choices (every engine plays
the same games: tests/engine/test_differential.py), so the replayed state is the same state,
exactly, whatever engine either side uses; it costs a replay of the game so far (a few
milliseconds for a card game), and the game is compiled once per process: ``prepared_game``
keeps the games it loaded by the digest of their text and their options.

Pickle runs code chosen by whoever wrote the pickle: unpickle only what you trust
(docs/security.md). OpenSpiel's ``game.deserialize_state(text)`` reads a plain, validated
text instead (recycle/env/spiel.py).
"""

from __future__ import annotations

import hashlib
import sys
import threading
import weakref
from collections import OrderedDict

# how many games ``prepared_game`` keeps compiled (the least recently used goes first)
GAME_CACHE_SIZE = 32

_GAMES: OrderedDict = OrderedDict()
_KEYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def text_digest(text: str) -> str:
    """The SHA-256 of a game's text (lone surrogates kept as they are)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def game_record(game) -> tuple:
    """What ``prepared_game`` needs to load ``game`` again: (its class, text, file name, engine,
    max_work). The game is kept by ``prepared_game`` too, so that loading it here is free."""
    kind = type(game)
    key = _KEYS.get(game)
    if key is None:
        key = (kind, text_digest(game.source.text), game.source.filename, game.engine, game.max_work)
        with _LOCK:
            _KEYS[game] = key
    _remember(key, game)
    return (kind, game.source.text, game.source.filename, game.engine, game.max_work)


def game_digest(game) -> str:
    """A short name of a game's text and load options (what a saved state must match)."""
    game_record(game)
    _kind, digest, filename, _engine, max_work = _KEYS[game]
    return text_digest(f"{digest}\n{filename}\n{max_work}")[:32]


def _remember(key: tuple, game) -> None:
    with _LOCK:
        _GAMES[key] = game
        _GAMES.move_to_end(key)
        while len(_GAMES) > GAME_CACHE_SIZE:
            _GAMES.popitem(last=False)


def prepared_game(kind: type, text: str, filename: str, engine: str | None, max_work: int):
    """The game of ``text`` (a ``kind``: ``PreparedGame``), compiled once per process for each
    (text, file name, engine, max_work). An engine this version does not have is replaced by
    the default one (all engines play the same games)."""
    # the class comes with the record (pickled by name), so that this module needs no import
    # of the game's: the game's module imports the state's, which pickles through this one
    if not isinstance(text, str) or not isinstance(filename, str):
        raise ValueError("a saved game's text and file name must be strings")
    engines = getattr(sys.modules.get(kind.__module__), "ENGINES", ())
    if engine not in engines:
        engine = None
    key = (kind, text_digest(text), filename, engine, max_work)
    with _LOCK:
        game = _GAMES.get(key)
        if game is not None:
            _GAMES.move_to_end(key)
            return game
    game = kind.from_text(text, filename, engine=engine, max_work=max_work)
    with _LOCK:
        _KEYS[game] = key
    _remember(key, game)
    # the engine that plays it may differ from the one asked for (the default, or a fallback):
    # its records name that one, and find it again
    _remember((kind, key[1], filename, game.engine, max_work), game)
    return game


def applied_decisions(s) -> int:
    """How many decisions ``s`` has had applied (one-option decisions too): a state stepped
    from outside waits at its latest decision, a finished one has applied them all."""
    return s.decisions if s.frames is None else s.decisions - 1


def state_reduce(s) -> tuple:
    """``State.__reduce__``: the state as its game, seed, limits and decisions (see above)."""
    from .knowledge import KnowledgeSink

    if s.unsaved:
        raise TypeError(f"cannot pickle this state: {s.unsaved}, so it is not the game of its seed and decisions")
    if s.frames is None and s.scores is None:
        raise TypeError("cannot pickle a state whose game has not begun (state_after_setup)")
    if s.decide is not None:
        raise TypeError("cannot pickle a state while it plays itself (play_inline)")
    events = s.events
    track = isinstance(events, KnowledgeSink)
    if track:
        events = events.inner
    record = type(events) is list  # a caller's own event sink is not saved
    return (
        restore_state,
        (game_record(s.game), s.seed, s.max_steps, s.max_work, applied_decisions(s), list(s.history), track, record),
    )


def restore_state(
    record: tuple,
    seed: int,
    max_steps: int,
    max_work: int,
    applied: int,
    history: list,
    track: bool = False,
    events: bool = False,
):
    """A state of the game ``record`` (``game_record``) dealt with ``seed`` and replayed
    through ``applied`` decisions, taking ``history``'s options at those of 2+ options."""
    game = prepared_game(*record)
    s = game.new_state(seed=seed, record=events, max_steps=max_steps, track=track, max_work=max_work)
    replay(s, applied, history)
    return s


def replay(s, applied: int, history) -> None:
    """Apply decisions to ``s`` until ``applied`` have been, taking 0 at a one-option decision
    and the next of ``history`` otherwise; ValueError when they do not fit the game."""
    if not isinstance(applied, int) or applied < 0 or applied > s.max_steps:
        raise ValueError(f"a saved state's decision count must be an integer from 0 to {s.max_steps}")
    j = 0
    while applied_decisions(s) < applied:
        if s.is_terminal():
            raise ValueError(f"the game ended after {applied_decisions(s)} decisions, not {applied}")
        n = s.num_options()
        if n == 1:
            s.apply(0)
            continue
        if j >= len(history):
            raise ValueError(f"the saved choices ran out at decision {applied_decisions(s) + 1}")
        i = history[j]
        if type(i) is not int or not 0 <= i < n:
            raise ValueError(f"choice {i!r} at decision {applied_decisions(s) + 1}, which has {n} options")
        s.apply(i)
        j += 1
    if j != len(history):
        raise ValueError(f"{len(history) - j} saved choices are left over after {applied} decisions")
