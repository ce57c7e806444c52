"""The compiled-bytecode cache of generated game modules, on disk and in memory.

Generating a game (``pygen.generate``) walks the compiled closures and writes Python source;
Python's ``compile`` of that source is the larger part of the time. The walk runs at every
load, because the module's constants are that load's own closures; the bytecode is the same
for the same source, so it is kept on disk, as Python keeps ``.pyc`` files, and a second
run of a game loads it instead of compiling again (about 25 ms for games/hearts.rcy, 0.3 ms
from the cache). The process also keeps the last ``MAX_IN_MEMORY`` modules it compiled or
read, so loading a game again (a notebook, parallel workers' tasks) reads no file.

An entry is keyed by the generated source and the name it is compiled under, the recycle
version and the Python version (bytecode differs between Python versions). The folder is
``$RECYCLE_CACHE_DIR``, or ``recycle`` in ``$XDG_CACHE_HOME`` (``~/.cache`` when unset);
``RECYCLE_NO_CACHE=1`` turns the cache off. A folder that cannot be written, or an entry
that cannot be read, costs only the compile: the cache never makes a load fail.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path
from types import CodeType

from ..version import __version__

MAX_ENTRIES = 256  # the oldest entries beyond this are removed when one is added
MAX_IN_MEMORY = 16  # modules this process keeps, so that loading a game again reads no file

_in_memory: dict[str, CodeType] = {}


def cache_dir() -> Path | None:
    """The folder of the bytecode cache, or None when the cache is turned off."""
    if os.environ.get("RECYCLE_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("RECYCLE_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home.startswith("~"):
            return None  # no home folder to cache in (never a folder named "~" in the working one)
        base = os.path.join(home, ".cache")
    return Path(base) / "recycle"


def entry_name(source: str, filename: str) -> str:
    """The file name of the entry for ``source`` compiled as ``filename``."""
    key = hashlib.sha256()
    for part in (__version__, sys.implementation.cache_tag or "", filename, source):
        key.update(part.encode("utf-8", "surrogatepass"))
        key.update(b"\0")
    return key.hexdigest()[:40] + ".code"


def compiled(source: str, filename: str) -> tuple[CodeType, bool]:
    """The code object of ``source`` (compiled as ``filename``), and whether it was read
    from the cache (this process's memory or the folder)."""
    folder = cache_dir()
    if folder is None:
        return _compile(source, filename), False
    name = entry_name(source, filename)
    path = folder / name
    code = _in_memory.get(name)
    if code is not None:
        _touch(path)
        return code, True
    try:
        code = marshal.loads(path.read_bytes())
        if isinstance(code, CodeType) and code.co_filename == filename:
            _touch(path)
            _remember(name, code)
            return code, True
    except (OSError, ValueError, EOFError, TypeError):
        pass  # absent or unreadable: compile it again and store it anew
    code = _compile(source, filename)
    _store(folder, path, marshal.dumps(code))
    _remember(name, code)
    return code, False


def forget() -> None:
    """Empty this process's memory of compiled modules (the folder keeps its entries)."""
    _in_memory.clear()


def _remember(name: str, code: CodeType) -> None:
    if len(_in_memory) >= MAX_IN_MEMORY:
        _in_memory.pop(next(iter(_in_memory), None), None)  # the first remembered
    _in_memory[name] = code


def _compile(source: str, filename: str) -> CodeType:
    return compile(source, filename, "exec")


def _store(folder: Path, path: Path, data: bytes) -> None:
    """Write one entry atomically (parallel workers may store the same game at once)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        _prune(folder)
    except OSError:
        pass  # a read-only or full disk: the game still loads, compiled once per process


def _touch(path: Path) -> None:
    """Mark an entry as used, so that pruning removes the least recently used."""
    try:
        os.utime(path)
    except OSError:
        pass


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.code"), key=lambda p: p.stat().st_mtime)
    for old in entries[:max(0, len(entries) - MAX_ENTRIES)]:
        old.unlink(missing_ok=True)


__all__ = ["cache_dir", "compiled", "entry_name", "forget"]
