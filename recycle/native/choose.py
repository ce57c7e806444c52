"""Which engine plays: the one place that decides (issue 42, requirement 6).

Every command and API that plays games asks here, and nowhere else, whether native code or
the reference interpreter plays them:

- ``engine_for(game, engine, players)``: the engine of a run of games (``batch.play_games``:
  ``simulate``, ``balance``, campaigns, the studio's runs; the page's random games);
- ``start_state(game, seed, ...)``: one game dealt to be stepped from outside (the PettingZoo
  and OpenSpiel environments, ``recycle play``, the studio's table and its replays);
- ``start_play(game, seed, ...)``: one game dealt for ``PreparedGame.play(engine=...)`` (``recycle
  run``, records and their replay, ``evolve``'s trial games), which the package hands to the
  engine layer as its hook (``recycle/__init__.py``: the engine layer lies beneath this one).

``engine`` is "auto" (native code whenever the game builds here, else the reference
interpreter: without a C compiler or NumPy one line on stderr says so once), "native" (the
same, but raising why it cannot) or "reference". A game native code stops (a rule broken, the
step limit, the work budget) is handed to the reference interpreter inside the call, which
gives its exact outcome or raises its exact positioned error.
"""

from __future__ import annotations

from .registry import NativeUnsupported

ENGINES = ("auto", "native", "reference")  # (auto: native where it plays the game, else reference)


def check_engine(engine: str) -> str:
    """``engine`` if it is one of ``ENGINES``, else ValueError naming them (and saying so of a
    retired engine's name)."""
    from ..engine.game import check_engine as check

    return check(engine, ENGINES)


_HERE: list = []  # whether the native engine can run in this process, once asked


def native_here() -> bool:
    """Can the native engine run here (NumPy, a C compiler)? Asked once a process (looking for
    the compilers costs more than a deal); ``available`` says once why not."""
    if not _HERE:
        from . import available

        _HERE.append(available())
    return _HERE[0]


def all_random(players) -> bool:
    """Are these players all the engine's random player (the players native rollouts play)?"""
    from ..engine.runner import RandomPlayer

    return all(type(p) is RandomPlayer for p in players)


def engine_for(game, players, engine: str = "auto") -> tuple[str, str | None]:
    """``(engine that plays a run of games, why not native)``: builds the game's machine code
    (or loads it from the cache) when native code may play. Native rollouts play random players
    only; without a C compiler, "auto" plays on the reference interpreter and recycle says so
    once on stderr (``available``); no note then."""
    from . import available, why_not_native

    check_engine(engine)
    if engine == "reference":
        return "reference", None
    if not all_random(players):
        note = "the native engine plays random players only" if engine == "native" else None
        return "reference", note
    if engine == "auto" and not available():
        return "reference", None
    why = why_not_native(game)
    return ("native", None) if why is None else ("reference", why)


def start_state(
    game,
    seed: int,
    max_steps: int,
    engine: str = "auto",
    record=None,
    track: bool = False,
    log_decisions: bool = False,
    max_work: int | None = None,
    search: bool = False,
):
    """The game dealt with ``seed`` and run to its first decision, stepped from outside: an
    ``OutsideState`` (recycle/native/outside.py) when native code steps it here, else the
    reference ``game.new_state``. "native" raises why it cannot (``NativeUnsupported``,
    ``NativeUnavailable``). ``record``, ``track``, ``log_decisions``: as ``start_outside``'s;
    ``search``: a player at the table searches (ISMCTS, a hint's adviser): the table is stepped
    by the game's search module, from whose blocks a search runs whole in machine code (as
    ``start_play``'s)."""
    if check_engine(engine) == "native" or (engine == "auto" and native_here()):
        from . import NativeUnavailable, NativeUnsupported
        from .outside import start_outside

        try:
            if search:
                best_built(game)
            return start_outside(
                game, seed, max_steps, max_work, record=record, track=track, log_decisions=log_decisions, search=search
            )
        except (NativeUnsupported, NativeUnavailable) as exc:
            if engine == "native":
                raise
            declined(game, exc)
    return game.new_state(seed, record=record, max_steps=max_steps, track=track, max_work=max_work)


def samples_worlds(players) -> bool:
    """Does a player at the table sample worlds from the live observation (one of the package's
    own that wants a view: a look-ahead player, or a person whose hints do)? A native table hands
    it a blind copy of the state (recycle/native/worlds.py), whose worlds it plays out natively
    from the table's own block, made blind (recycle/native/blind.py), and an ISMCTS seat searches
    whole from it (recycle/native/blind_search.py)."""
    from ..engine.runner import is_privileged

    return any(is_privileged(p) and getattr(p, "needs_view", True) for p in players)


def blind_serves(game, search: bool = False) -> bool:
    """Does a native table give every player sampling worlds (``samples_worlds``) the reference
    engine's decisions with its playouts in machine code? Not in a game with a simultaneous stage
    (the others' pending picks are in the native block: its seats' worlds would be played in
    Python; the same decisions, more slowly). (A cheating player, the omniscient one or one
    seeing a location, is handed the twin's live observation, as the reference engine hands it
    the live state: ``OutsideState.player_observation``.) ``search``: the table is stepped by
    the game's search module (read its text, not the plain one's: the plain module is not built
    for it). Raises ``NativeUnsupported`` for a game native code does not write."""
    from . import native_source
    from .playouts_state import SIMULTANEOUS

    try:
        source = native_source(game, search)
    except NativeUnsupported:
        if not search:
            raise
        source = native_source(game)
    return SIMULTANEOUS not in source


BEST_WAIT = 60.0  # seconds a searching table waits for its optimised library at most


def best_built(game) -> None:
    """Wait (up to ``BEST_WAIT`` s) for the optimised build of the game's search module, when
    only the fast one is loaded (a cold cache): a native table's blocks run only in the library
    that started it, so a table started on tcc's code would search at its speed (about a third
    of gcc -O2's) for the whole game, where the reference engine's searches move to gcc's code as
    soon as it is built. Nothing to wait for when it is cached or being built in no thread."""
    from . import NativeUnavailable, native_game

    try:
        games = native_game(game, True).module.games
    except (NativeUnsupported, NativeUnavailable):
        return
    games.ready.wait(BEST_WAIT)


def start_play(game, seed: int, max_steps: int, max_work, record, track: bool, engine: str, players=()):
    """``PreparedGame.play``'s hook: the game dealt natively (an ``OutsideState`` at its first
    decision), or None where the reference interpreter plays it: "reference"; with "auto", a
    game native code does not build here, or players sampling worlds that a native table does
    not serve as the reference does (``blind_serves``); a deal native code stopped (the reference
    interpreter deals it again for its exact outcome and its transcript so far). "native" raises
    why it cannot build the game. A table with a player that searches (ISMCTS) is stepped by
    the game's search module, from whose blocks its searches run whole in machine code."""
    from ..errors import RecycleError

    if check_engine(engine) == "reference" or (engine == "auto" and not native_here()):
        return None
    from . import NativeUnavailable, NativeUnsupported
    from .outside import start_outside

    try:
        search = any(getattr(p, "searches", False) for p in players)
        if engine == "auto" and samples_worlds(players) and not blind_serves(game, search):
            return None
        if search:
            best_built(game)
        return start_outside(game, seed, max_steps, max_work, record=record, track=track, search=search)
    except (NativeUnsupported, NativeUnavailable) as exc:
        if engine == "native":
            raise
        declined(game, exc)
    except RecycleError:
        pass  # (stopped while dealing: dealt again by the reference interpreter, which raises it)
    return None


def declined(game, exc) -> None:
    """Say once on stderr why "auto" plays ``game`` on the reference interpreter (a form the
    native writer does not write, and where; without a compiler ``available`` said it)."""
    from . import NativeUnsupported
    from .cache import say

    if isinstance(exc, NativeUnsupported):
        where = exc.where()
        why = f"the native engine does not write {exc.what}" + (f" ({where})" if where else "")
        say(f"{game.name} is played by the reference interpreter: {why}")
