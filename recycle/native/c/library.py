"""A native module's library, loaded and called: ``ModuleLibrary(source, glb)``.

It translates the module to C (cmodule.py) only when no library of it is kept, builds it with
the fast compiler at once and with the best one in a background thread (build.py), and is
called as the module's entry ``games`` was: with the tuples of arrays and the numbers of
recycle/native/engine.py. A call releases Python's GIL (ctypes does), so threads play rollouts
at once. Each array is checked (dtype, dimensions, C order) before its address is handed on.
"""

from __future__ import annotations

import threading
import time

from .. import cache
from . import build
from .cmodule import VERSION, c_source, flat_entry
from .ctyping import Arr

_FLAT = flat_entry()
_ARRAYS = [t for t in _FLAT if isinstance(t, Arr)]
_NARRAYS = len(_ARRAYS)


def entry_key(source: str, compiler) -> str:
    """What a module's library is kept under: its source, recycle's code (the runtime and the
    translator: ``kept.code_stamp``), and the compiler (``build.version``) and its flags."""
    from ..kept import code_stamp

    return cache.digest(source, VERSION, code_stamp(), build.version(compiler[1]), " ".join(compiler[1][1:]))


class NoCompiler(Exception):
    """No C compiler here: the reference interpreter plays."""


class ModuleLibrary:
    """The entry of one native module, in machine code (see the module's docstring)."""

    def __init__(self, source: str, glb, title: str = "", background: bool = True, tiers=None):
        """``glb``: the module's namespace (its constants' values, for the translation), or a
        function making it (called only when the module must be translated)."""
        fast, best = build.compilers() if tiers is None else tiers
        if fast is None:
            raise NoCompiler("no C compiler (tcc or gcc) was found: install one (setup.sh does)")
        self.source, self.glb, self.title = source, glb, title
        self._c = None
        self.tier = None
        self.ready = threading.Event()  # set when the best library is in place (or none is coming)
        self._local = threading.local()
        self._keep = []  # every library loaded (never unloaded: a call may be running in one)
        self._swap = threading.Lock()  # the fast library never replaces the best one
        self.best_started = None  # when the best library's background build started (time.monotonic)
        self.fast, self.best = fast, best
        if best is not None and self._use_kept(best):
            self.ready.set()
            return
        if self._use_kept(fast):
            fast = None
        else:
            self.c_text()  # (before the background build starts: written once, here)
        if best is None:
            self.ready.set()
        elif background:
            # started first: gcc's build is the longer, and the run's games wait for it
            self.best_started = time.monotonic()
            threading.Thread(target=self._build_best, name="recycle-native-build", daemon=True).start()
        if fast is not None:
            data = build.compile_c(self.c_text(), fast[1])
            build.keep(self._key(fast), fast[0], data)
            with self._swap:
                if self.tier is None:  # (not if the best library is in place already)
                    self._use(fast[0], data)
        if best is not None and not background:
            self._build_best()

    def _use_kept(self, compiler) -> bool:
        """Load the library ``compiler`` built, when the cache keeps one (authenticated); one the
        loader refuses (made for another machine) is built again."""
        data = build.cached(self._key(compiler), compiler[0])
        if data is None:
            return False
        try:
            self._use(compiler[0], data)
        except OSError:
            return False
        return True

    def _key(self, compiler) -> str:
        return entry_key(self.source, compiler)

    def c_text(self) -> str:
        """The module's C (written once)."""
        if self._c is None:
            if callable(self.glb):
                self.glb = self.glb()
            self._c = c_source(self.source, self.glb, self.title)
        return self._c

    def _build_best(self) -> None:
        try:
            data = build.compile_c(self.c_text(), self.best[1])
            build.keep(self._key(self.best), self.best[0], data)
            with self._swap:
                self._use(self.best[0], data)
        except build.BuildFailed as exc:
            cache.say(f"the optimised native build failed, the fast one plays on: {exc}".splitlines()[0])
        except OSError:
            # (its temporary folder or the cache went away under it: a test's folder removed as
            # the process ends; the fast library plays on, and the next run builds it again)
            pass
        finally:
            self.ready.set()

    def _use(self, tier: str, data: bytes) -> None:
        lib, fn = build.load_library(data)
        self._keep.append(lib)
        self.lib = lib  # its stepping harness (recycle/native/stepping.py)
        self._fn, self.tier = fn, tier  # calls from now on take this one

    def _buffers(self) -> _Buffers:
        got = getattr(self._local, "buffers", None)
        if got is None:
            got = self._local.buffers = _Buffers()
        return got

    def __call__(self, initial, state, nteams, all_keys, max_steps, max_work, scores, counts, where, places, out):
        """The entry ``games`` of the module (recycle/native/writer_module.py, ENTRY)."""
        arrays = (*initial, *state, all_keys, scores, counts, where, out)
        if len(arrays) != _NARRAYS:
            raise TypeError(f"games: {len(arrays)} arrays given, {_NARRAYS} expected")
        fn = self._fn
        b = self._buffers()
        last = b.last
        for i, a in enumerate(arrays):
            if a is last[i]:  # the same array as the last call's (a playout's state): set already
                continue
            t = _ARRAYS[i]
            if a.dtype.name != t.dtype or a.ndim != t.ndim or not a.flags.c_contiguous:
                raise TypeError(f"games: array {i} is {a.dtype.name}[{a.ndim}], {t.dtype}[{t.ndim}] expected")
            b.ptrs[i] = a.ctypes.data if a.size else None
            for k, s in enumerate(a.shape):
                b.shapes[3 * i + k] = s
            last[i] = a
        numbers = b.numbers
        numbers[0], numbers[1], numbers[2], numbers[3] = int(nteams), int(max_steps), int(max_work), int(bool(places))
        fn(b.ptrs, b.shapes, numbers)


class _Buffers:
    """One thread's arguments of ``rc_games``: the arrays' addresses and shapes, the numbers,
    and the arrays they were set from (held, so that an address stays valid)."""

    def __init__(self):
        import ctypes

        self.ptrs = (ctypes.c_void_p * _NARRAYS)()
        self.shapes = (ctypes.c_longlong * (3 * _NARRAYS))()
        self.numbers = (ctypes.c_longlong * 4)()
        self.last: list = [None] * _NARRAYS
