"""The native engine: a game's random rollouts played in machine code (C).

``native_game(game)`` writes the game's module (recycle/native/writer.py), builds it into a
shared library (recycle/native/c/: translated to C, built by tcc at once and by gcc -O2 in the
background, or loaded from the cache) and gives a ``NativeGame`` whose ``rollouts(seeds)``
plays games with random players, seed for seed the same games as the Python engine's
``random_rollout`` (tests/engine/test_native.py proves it over the corpus). A game the writer
cannot write gives ``NativeUnsupported``, naming the form; the caller stays on Python.

A rollout that breaks a rule, hits the step limit or runs out of work (``ctr[STATUS]``) is
played again by the Python engine, which gives the exact outcome and message.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
import types

from ..version import __version__
from .registry import NativeUnsupported

MODULE_PREFIX = "recycle_native_g"  # every generated module's name starts so
ENTRY = "games"  # the one function of a module called from Python (writer_module.py, ENTRY)
_LOADED: dict[str, object] = {}  # source digest -> module, this process's
_LOCK = threading.Lock()


def available() -> bool:
    """Can the native engine run here (NumPy installed, a C compiler found)? Asked without
    importing NumPy."""
    import importlib.util

    try:
        if importlib.util.find_spec("numpy") is None:
            return False
    except (ImportError, ValueError):
        return False
    from .c.build import compilers

    return compilers()[0] is not None


def _digest(source: str) -> str:
    h = hashlib.sha256()
    for part in (__version__, sys.version, source):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:40]


def cache_folder():
    """The folder native entries are kept in (recycle/native/cache.py), or None (no usable
    cache: built each time)."""
    from . import cache

    return cache.folder()


def load_module(source: str, name: str, background: bool = True):
    """The module of ``source``: its constants (read from their lines, nothing run) and
    ``games``, its entry in machine code (``ModuleLibrary``: built now or loaded from the
    native cache, the optimised build swapped in when ready). The source is run (it only
    defines constants and functions) only when it must be translated to C."""
    digest = _digest(source)
    with _LOCK:
        mod = _LOADED.get(digest)
        if mod is not None:
            return mod
        from .c.library import ModuleLibrary
        from .kept import constants

        mod = types.ModuleType(f"{MODULE_PREFIX}{digest}")
        mod.__file__ = f"<recycle native {digest}>"
        mod.__dict__.update(constants(source))

        from .c.build import BuildFailed
        from .c.ctext import TranslateError

        try:
            mod.games = ModuleLibrary(
                source, lambda: module_namespace(source), f"native module of {name}", background=background
            )
        except (TranslateError, BuildFailed) as exc:
            # a bug of the writer or the translator, never the game's: the reference interpreter plays it
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise NativeUnsupported(f"this game's C ({first[:300]})") from None
        _LOADED[digest] = mod
        return mod


def module_namespace(source: str) -> dict:
    """The namespace of a module's source run (it only defines constants and functions): what
    the translation to C reads the constants' values from."""
    digest = _digest(source)
    ran = types.ModuleType(f"{MODULE_PREFIX}{digest}")
    exec(compile(source, f"<recycle native {digest}>", "exec"), ran.__dict__)
    return ran.__dict__


def is_cached(source: str, on_disk: bool = False) -> bool:
    """Is this module's library loaded in this process or kept in the cache folder (a load
    builds nothing)? ``on_disk``: in the cache folder (what other processes load)."""
    digest = _digest(source)
    if not on_disk and digest in _LOADED:
        return True
    if not available():
        return False
    from .c import build

    from .c.library import entry_key

    return any(c is not None and build.cached(entry_key(source, c), c[0]) for c in build.compilers())


class NativeGame:
    """A prepared game's native module and its state after setup (create with ``native_game``)."""

    def __init__(self, game, source: str):
        import numpy as np

        from .runtime import NCOUNTERS, STACK_DEPTH

        self.game = game
        self.source = source
        self.searches = False  # a search module (``native_game(game, search=True)``)
        t0 = time.perf_counter()
        self.module = load_module(source, game.name)
        self.compiled = False  # the first call made
        self.compile_seconds = time.perf_counter() - t0  # building (or loading) the library
        s = game.state_after_setup()
        lay = game.layout
        ncards = len(game.card_attrs)
        self.ncards = ncards
        cap = max(ncards, 1)
        strings = self.module_strings()
        locs = np.zeros((lay.nlocs, cap), np.int32)
        lens = np.zeros(lay.nlocs, np.int32)
        for i, lst in enumerate(s.locs):
            lens[i] = len(lst)
            locs[i, : len(lst)] = [int(c) for c in lst]
        card_loc = np.array([int(x) for x in s.card_loc] or [0], np.int32)
        ints = np.array(s.ints or [0], np.int64)
        strs = np.array([strings.get(v, 0) for v in s.strs] or [0], np.int32)
        pts = np.zeros((max(lay.npoints, 1), cap), np.int64)
        for j, pm in enumerate(s.points):
            pts[j, : len(pm.table)] = pm.table
        team_of = np.array([-1 if t is None else int(t) for t in s.team_of], np.int64)
        self.initial = (locs, lens, card_loc, ints, strs, pts, team_of)
        self.nteams = s.nteams
        self.NCOUNTERS = NCOUNTERS
        self.STACK_DEPTH = STACK_DEPTH

    def warm(self) -> None:
        """Compile (or load from the cache) the machine code now: one rollout of seed 0."""
        if not self.compiled:
            self.rollouts([0], 100_000, self.game.max_work)
            self.module._warm = True
            from .playouts import warm_playout

            warm_playout(self)

    def module_strings(self) -> dict:
        return getattr(self.module, "STRINGS", {})

    def new_arrays(self):
        """A fresh native state (the tuple S the module plays on), as dealt by setup."""
        import numpy as np

        locs, lens, card_loc, ints, strs, pts, team_of = self.initial
        # a player stage's entry: its player, the player queued next, ctr[STEPS] when it was entered
        pst = np.zeros((self.STACK_DEPTH, 3), np.int64)
        tst = np.zeros((self.STACK_DEPTH, 2), np.int64)
        # (the last NPLAYERS + 1: a traced game's scores at its stop, writer.score_now)
        ctr = np.zeros(self.NCOUNTERS + 2 * self.game.nplayers + 1, np.int64)
        keys = np.zeros(3, np.uint64)  # chance, players, a sampled world's chance (runtime.arrive)
        from .runtime import SCRATCH
        from .runtime_dry import dry_size
        from .runtime_resume import R_HEADER
        from .runtime_search import T_HEADER

        nlocs = locs.shape[0]
        ver = np.zeros(nlocs + 1, np.int64)
        memo = np.zeros((max(self.module.MEMO_SITES, 1), nlocs, 3), np.int64)
        # what a dry run changes, kept (runtime.dry_state): locations, places, storages, turns
        size = dry_size(nlocs, self.ncards, ints.size, strs.size, pts.size)
        dry = np.zeros((max(getattr(self.module, "DRY_LEVELS", 1), 1), size), np.int64)
        return (
            locs.copy(),
            lens.copy(),
            card_loc.copy(),
            ints.copy(),
            strs.copy(),
            pts.copy(),
            pst,
            tst,
            ctr,
            keys,
            team_of.copy(),
            np.zeros(SCRATCH, np.int32),
            ver,
            memo,
            dry,
            np.zeros(R_HEADER, np.int64),
            np.zeros(T_HEADER, np.int64),
            np.zeros(1, np.float64),
        )

    def rollouts(self, seeds, max_steps: int, max_work: int, places: bool = False):
        """Play one random game per seed; returns (scores[n, P], counters[n, 5]: status, steps,
        decisions, options, rounds, and card places[n, cards] when ``places``)."""
        return self.rollouts_of_keys(chance_and_player_keys(seeds), max_steps, max_work, places)

    def rollouts_of_keys(self, keys, max_steps: int, max_work: int, places: bool = False, state=None):
        """``rollouts`` of the games whose (chance, players) stream keys are the rows of
        ``keys``; ``state``: the native arrays to play on (made afresh when None)."""
        import numpy as np

        n = len(keys)
        scores = np.zeros((n, self.game.nplayers), np.int64)
        counts = np.zeros((n, 5), np.int64)
        where = np.zeros((n if places else 0, self.ncards), np.int32)
        no_playout = np.zeros(0, np.int64)  # the module's one entry plays rollouts
        self.module.games(
            self.initial,
            self.new_arrays() if state is None else state,
            self.nteams,
            keys,
            max_steps,
            max_work,
            scores,
            counts,
            where,
            places,
            no_playout,
        )
        self.compiled = True
        return scores, counts, where


def range_keys(seed: int, start: int, stop: int):
    """The stream keys of rollouts ``start`` to ``stop`` of a simulation seeded with ``seed``
    (``rollout_seed(seed, i)``), made natively when every seed is below 2**64."""
    import numpy as np

    from ..engine.game import rollout_seed

    if isinstance(seed, int) and rollout_seed(seed, 0) >= 0 and rollout_seed(seed, stop) < 1 << 64:
        from .runtime import keys_of

        return keys_of(np.arange(start, stop, dtype=np.uint64) + np.uint64(rollout_seed(seed, 0)))
    return chance_and_player_keys([rollout_seed(seed, i) for i in range(start, stop)])


def chance_and_player_keys(seeds):
    """Each rollout's (chance, players) stream keys, as recycle/streams.py keys them."""
    import numpy as np

    from ..streams import CHANCE, PLAYERS, stream_key

    if all(type(sd) is int and 0 <= sd < 1 << 64 for sd in seeds):
        from .runtime import keys_of

        return keys_of(np.array(seeds, dtype=np.uint64))
    out = np.zeros((len(seeds), 2), np.uint64)
    for i, sd in enumerate(seeds):
        out[i, 0] = stream_key(sd, CHANCE)
        out[i, 1] = stream_key(sd, PLAYERS)
    return out


def native_source(game, search: bool = False) -> str:
    """The source of the game's native module (``search``: its search module), written once
    per prepared game, or NativeUnsupported (``recycle.native.native_source``)."""
    attr = "_native_search_source" if search else "_native_source"
    got = getattr(game, attr, None)
    if got is None:
        from .kept import keep_source, kept_source

        got = kept_source(game, search)  # written before for this game's text: not again
        if got is None:
            from .module import write

            try:
                got = write(game, search)
                keep_source(game, search, got)
            except NativeUnsupported as exc:
                got = exc
        setattr(game, attr, got)
    if isinstance(got, Exception):
        raise got
    return got


def native_game(game, search: bool = False):
    """The game's ``NativeGame`` (made once per prepared game), or raises NativeUnsupported;
    ``search``: its search module (``module.write``)."""
    attr = "_native_search" if search else "_native"
    got = getattr(game, attr, None)
    if got is not None:
        if isinstance(got, Exception):
            raise got
        return got
    try:
        ng = NativeGame(game, native_source(game, search))
    except Exception as exc:
        setattr(game, attr, exc)
        raise
    ng.searches = search
    setattr(game, attr, ng)
    return ng
