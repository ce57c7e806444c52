"""A native module's library, loaded and called: ``ModuleLibrary(source, glb)``.

It translates the module to C (cmodule.py) only when no library of it is kept, builds it with
the fast compiler at once and with the best one in a background thread (build.py), and is
called as the module's entry ``games`` was: with the tuples of arrays and the numbers of
recycle/native/engine.py. A call releases Python's GIL (cffi does), so threads play rollouts
at once. Each array is checked (dtype, dimensions, C order) before its address is handed on.
"""

from __future__ import annotations

import threading

from .. import cache
from . import build
from .cmodule import c_source, flat_entry, runtime_text
from .ctyping import Arr

_FLAT = flat_entry()
_ARRAYS = [t for t in _FLAT if isinstance(t, Arr)]
_NARRAYS = len(_ARRAYS)


def entry_key(source: str, compiler) -> str:
    """What a module's library is kept under: its source, the runtime and translator, and the
    compiler's version and flags."""
    return cache.digest(source, runtime_text(), build.version(compiler[1]), " ".join(compiler[1][1:]))


class NoCompiler(Exception):
    """No C compiler here: the reference interpreter plays."""


class ModuleLibrary:
    """The entry of one native module, in machine code (see the module's docstring)."""

    def __init__(self, source: str, glb: dict, title: str = "", background: bool = True, tiers=None):
        fast, best = build.compilers() if tiers is None else tiers
        if fast is None:
            raise NoCompiler("no C compiler (tcc or gcc) was found: install one (setup.sh does)")
        self.source, self.glb, self.title = source, glb, title
        self._c = None
        self.tier = None
        self.ready = threading.Event()  # set when the best library is in place (or none is coming)
        self._local = threading.local()
        self._keep = []  # every library loaded (never unloaded: a call may be running in one)
        self.fast, self.best = fast, best
        if best is not None:
            data = build.cached(self._key(best), best[0])
            if data is not None:
                self._use(best[0], data)
                self.ready.set()
                return
        data = build.cached(self._key(fast), fast[0])
        if data is None:
            data = build.compile_c(self.c_text(), fast[1])
            build.keep(self._key(fast), fast[0], data)
        self._use(fast[0], data)
        if best is None:
            self.ready.set()
        elif background:
            threading.Thread(target=self._build_best, name="recycle-native-build", daemon=True).start()
        else:
            self._build_best()

    def _key(self, compiler) -> str:
        return entry_key(self.source, compiler)

    def c_text(self) -> str:
        """The module's C (written once)."""
        if self._c is None:
            self._c = c_source(self.source, self.glb, self.title)
        return self._c

    def _build_best(self) -> None:
        try:
            data = build.compile_c(self.c_text(), self.best[1])
            build.keep(self._key(self.best), self.best[0], data)
            self._use(self.best[0], data)
        except build.BuildFailed as exc:
            cache.say(f"the optimised native build failed, the fast one plays on: {exc}".splitlines()[0])
        finally:
            self.ready.set()

    def _use(self, tier: str, data: bytes) -> None:
        ffi, lib = build.load_library(data)
        self._keep.append((ffi, lib))
        self._ffi, self._fn, self.tier = ffi, lib.rc_games, tier  # calls from now on take this one

    def _buffers(self):
        got = getattr(self._local, "buffers", None)
        if got is None or got[0] is not self._ffi:
            ffi = self._ffi
            got = (ffi, ffi.new(f"void *[{_NARRAYS}]"), ffi.new(f"long long[{3 * _NARRAYS}]"), ffi.new("long long[4]"))
            self._local.buffers = got
        return got

    def __call__(self, initial, state, nteams, all_keys, max_steps, max_work, scores, counts, where, places, out):
        """The entry ``games`` of the module (recycle/native/writer.py, ROLLOUTS)."""
        arrays = (*initial, *state, all_keys, scores, counts, where, out)
        if len(arrays) != _NARRAYS:
            raise TypeError(f"games: {len(arrays)} arrays given, {_NARRAYS} expected")
        fn = self._fn
        ffi, ptrs, shapes, numbers = self._buffers()
        for i, (a, t) in enumerate(zip(arrays, _ARRAYS)):
            if a.dtype.name != t.dtype or a.ndim != t.ndim or not a.flags.c_contiguous:
                raise TypeError(f"games: array {i} is {a.dtype.name}[{a.ndim}], {t.dtype}[{t.ndim}] expected")
            ptrs[i] = ffi.from_buffer(a, require_writable=False) if a.size else ffi.NULL
            for k, s in enumerate(a.shape):
                shapes[3 * i + k] = s
        numbers[0], numbers[1], numbers[2], numbers[3] = int(nteams), int(max_steps), int(max_work), int(bool(places))
        fn(ptrs, shapes, numbers)
