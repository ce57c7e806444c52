"""Numba's compile results kept in recycle's native cache (cache.py), never in Numba's own.

Numba's own cache (``cache=True``) keeps a function's machine code as two pickles, an index
and a data file, in ``__pycache__`` beside its source or under ``NUMBA_CACHE_DIR``, and loads
whatever it finds there: an index planted in a shared ``NUMBA_CACHE_DIR`` ran its author's
code, and a damaged file broke every run (a traceback, "Aborted!", SIGTRAP) until deleted
by hand. So no recycle function uses it. ``protect(dispatcher, entry)`` gives a dispatcher a
cache of its own, which Numba's dispatcher calls as it calls its own (``load_overload``,
``save_overload``) and which keeps each compile result as one item of an entry of the native
cache, authenticated before Numba unpickles a byte of it:

* a generated module's entry ``games`` (engine.py) is kept in the entry ``g`` + the module's
  digest (its machine code holds the whole module: compiling.py);
* the runtime's functions (``runtime*.py``, decorated with this module's ``njit``) share the
  entry ``r`` + a digest of the runtime's sources and versions.

An item's name is the function's name and a digest of what Numba keys a compile result by
(the signature, the machine: target, CPU and its features, and the function's bytecode).
Compile results made in this process are written when ``commit()`` is called: after a
module's first call (engine.py) and when the process ends.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import pickle
import re
import sys
import threading
from pathlib import Path

from . import cache as store

_lock = threading.RLock()
_known: dict[tuple[str, str], dict[str, bytes]] = {}  # (folder, entry) -> its items, read or made here
_made: dict[tuple[str, str], set[str]] = {}  # the items made here and not yet written
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def _where(base: str | None = None) -> str | None:
    """recycle's cache folder ``base`` (the environment's when None) when its native folder is
    usable, else None."""
    folder = store.base_folder() if base is None else Path(base)
    if folder is None or store.folder(folder) is None:
        return None
    return str(folder)


def _items(where: str, entry: str, fresh: bool = False) -> dict[str, bytes]:
    """The entry's items as this process knows them: read once, verified (``fresh``: read
    again, since another process may have written it: the one compiling in the background,
    a worker), with the items made here."""
    key = (where, entry)
    known = _known.get(key)
    if known is None or fresh:
        found = dict(store.read(entry, Path(where)) or {})
        found.update((item, data) for item, data in (known or {}).items() if item in _made.get(key, ()))
        _known[key] = known = found
    return known


def has(entry: str, function: str) -> bool:
    """Is a compile result of ``function`` kept in the entry (in the folder the environment
    names, verified)?"""
    with _lock:
        where = _where()
        if where is None:
            return False
        prefix = _UNSAFE.sub("_", function) + "."
        not_written = _made.get((where, entry), set())
        return any(item.startswith(prefix) and item not in not_written for item in _items(where, entry, fresh=True))


def commit() -> None:
    """Write every entry this process made compile results for (merged with what the folder
    holds now: parallel processes add to the runtime's entry each their own)."""
    with _lock:
        for key, made in list(_made.items()):
            where, entry = key
            if not made or _where(where) is None:
                continue
            items = dict(store.read(entry, Path(where)) or {})
            mine = _known.get(key, {})
            items.update((item, mine[item]) for item in made if item in mine)
            if store.write(entry, items, Path(where)):
                _known[key] = items
                made.clear()


atexit.register(commit)


class ProtectedCache:
    """What Numba's dispatcher calls for its cache (``numba.core.caching._Cache``), kept in
    the entry ``entry`` of the native cache. Loads only what ``cache.read`` verified; any
    failure to load is a miss (the function is compiled again), never an error."""

    def __init__(self, py_func, entry: str, base: str | None = None):
        self._py_func = py_func
        self._entry = entry
        self._base = base  # recycle's cache folder; None: the one the environment names at each use
        self._name = _UNSAFE.sub("_", py_func.__qualname__)
        self._enabled = True

    @property
    def cache_path(self) -> str:
        return _where(self._base) or ""

    def enable(self) -> None:
        self._enabled = True

    def disable(self) -> None:
        self._enabled = False

    def flush(self) -> None:
        pass

    def _item(self, sig, codegen) -> str:
        """The item's name: what Numba's ``Cache._index_key`` keys a compile result by."""
        from numba.core.serialize import dumps

        closure = self._py_func.__closure__
        cvars = dumps(tuple(c.cell_contents for c in closure)) if closure is not None else b""
        sig_types = sig if isinstance(sig, tuple) else (sig,)
        what = repr(
            (
                repr(sig),
                [repr(getattr(t, "key", t)) for t in sig_types],
                codegen.magic_tuple(),
                hashlib.sha256(self._py_func.__code__.co_code).hexdigest(),
                hashlib.sha256(cvars).hexdigest(),
            )
        )
        return f"{self._name}.{hashlib.sha256(what.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}"

    def load_overload(self, sig, target_context):
        if not self._enabled:
            return None
        with _lock:
            where = _where(self._base)
            if where is None:
                return None
            target_context.refresh()
            item = self._item(sig, target_context.codegen())
            data = _items(where, self._entry).get(item)
            if data is None:  # perhaps written since by another process (a background compile)
                data = _items(where, self._entry, fresh=True).get(item)
        if data is None:
            return None
        try:
            from numba.core.compiler import CompileResult

            # authenticated by cache.read: bytes this user's recycle wrote, unchanged
            return CompileResult._rebuild(target_context, *pickle.loads(data))
        except Exception:  # noqa: BLE001 - a result this Numba cannot load: compiled again
            with _lock:
                _items(where, self._entry).pop(item, None)
            path = Path(where) / store.FOLDER / store.entry_file(self._entry)
            store.say(f"the native cache entry {path} could not be loaded by this Numba: compiling it again")
            return None

    def save_overload(self, sig, cres) -> None:
        if not self._enabled or any(not x.can_cache for x in cres.lifted) or cres.library.has_dynamic_globals:
            return
        with _lock:
            where = _where(self._base)
            if where is None:
                return
            try:
                from numba.core.serialize import dumps

                data = dumps(cres._reduce())
            except Exception:  # noqa: BLE001 - not kept: compiled again next time
                return
            item = self._item(sig, cres.codegen)
            _items(where, self._entry)[item] = data
            _made.setdefault((where, self._entry), set()).add(item)


def protect(dispatcher, entry: str, base: Path | None = None) -> None:
    """Keep ``dispatcher``'s compile results in the native cache's ``entry`` (before its first
    compile), in recycle's cache folder ``base`` (None: the one the environment names at each
    load and save). A dispatcher of another shape keeps Numba's null cache: compiled each time."""
    if hasattr(dispatcher, "_cache") and hasattr(dispatcher, "py_func"):
        dispatcher._cache = ProtectedCache(dispatcher.py_func, entry, None if base is None else str(base))


@functools.cache
def runtime_entry() -> str:
    """The runtime's entry: ``r`` + a digest of recycle's, Numba's and Python's versions and
    the runtime's sources (a change of any makes a new entry)."""
    from importlib.metadata import PackageNotFoundError, version

    from ..version import __version__

    try:
        numba_version = version("numba")
    except PackageNotFoundError:
        numba_version = "?"
    sources = [p.read_text("utf-8") for p in sorted(Path(__file__).parent.glob("runtime*.py"))]
    return "r" + store.digest(__version__, numba_version, sys.version, *sources)


def njit(*args, cache: bool = False, **options):
    """``numba.njit`` for the runtime: ``cache=True`` keeps the function's compile results in
    the native cache's runtime entry (``protect``), never in Numba's own cache."""
    import numba

    def decorate(func):
        dispatcher = numba.njit(**options)(func)
        if cache:
            protect(dispatcher, runtime_entry())
        return dispatcher

    if len(args) == 1 and callable(args[0]) and not options:
        return decorate(args[0])
    if args:
        raise TypeError("njit: only keyword options (the runtime's functions give no signatures)")
    return decorate
