"""Building a native module's C into a shared library, keeping it, loading it.

Two tiers: the *fast* compiler (``tcc``, a few milliseconds a game; ``gcc -O0`` where tcc is
missing) builds the library the first call needs, at once; the *best* (``gcc -O2``, a few
seconds, code about three times faster) builds in a background thread, and the module's
entry calls the better library from its next call on (``Library.swap``: both play the same
games, bit for bit: tests/engine/test_native_c.py). Each library is kept in the native cache
(recycle/native/cache.py: HMAC-authenticated entries of a user-only folder) under a digest of
the module's source, the runtime, the translator and the compiler's name and version; a
second run loads the best one kept (a memory file, ``memfd``, mapped by ``dlopen`` through
ctypes: no file another user could swap is ever loaded).

Without any C compiler recycle plays on the reference interpreter and says so once on stderr
(``NativeUnavailable``). ``RECYCLE_NATIVE_CC`` chooses the compilers: ``tcc,gcc`` (the
default), one of them alone, or ``none``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import threading

from .. import cache

GCC_FLAGS = ["-O2", "-fwrapv", "-fno-strict-aliasing", "-ffp-contract=off", "-shared", "-fPIC", "-w"]
FAST_GCC_FLAGS = ["-O0", "-fwrapv", "-shared", "-fPIC", "-w"]
TCC_FLAGS = ["-shared", "-w"]
BUILD_SECONDS = 600  # a compiler that runs longer is stopped (the reference interpreter plays)

_running: set = set()  # compiler processes this process started (stopped when it ends)
_lock = threading.Lock()
_versions: dict[str, str] = {}


class BuildFailed(Exception):
    """The compiler refused the C (a bug of the translator: the reference interpreter plays)."""


def _wanted() -> list[str]:
    raw = os.environ.get("RECYCLE_NATIVE_CC", "tcc,gcc").strip().lower()
    if raw in ("", "none", "0"):
        return []
    return [c for c in raw.replace(" ", "").split(",") if c in ("tcc", "gcc")]


_found: dict = {}  # (RECYCLE_NATIVE_CC, PATH) -> compilers(): asked before every chunk of games


def compilers() -> tuple[tuple | None, tuple | None]:
    """(fast, best): each (name, command) or None. The fast one builds at once, the best one
    in the background (None when it would be the fast one again). Looked for once for each
    ``RECYCLE_NATIVE_CC`` and ``PATH``."""
    key = (os.environ.get("RECYCLE_NATIVE_CC"), os.environ.get("PATH"))
    got = _found.get(key)
    if got is None:
        got = _found[key] = _compilers()
    return got


def _compilers() -> tuple[tuple | None, tuple | None]:
    wanted = _wanted()
    tcc = shutil.which("tcc") if "tcc" in wanted else None
    gcc = (shutil.which("gcc") or shutil.which("cc")) if "gcc" in wanted else None
    best = ("gcc-O2", [gcc, *GCC_FLAGS]) if gcc else None
    if tcc:
        return ("tcc", [tcc, *TCC_FLAGS]), best
    if gcc:
        return ("gcc-O0", [gcc, *FAST_GCC_FLAGS]), best
    return None, None


def version(command: list[str]) -> str:
    """What identifies the compiler in a cache entry's key: its real path, size and change time
    (an upgrade changes them; asked without running it, which would cost the cached load)."""
    exe = command[0]
    got = _versions.get(exe)
    if got is None:
        real = os.path.realpath(exe)
        try:
            st = os.stat(real)
            got = f"{real}:{st.st_size}:{st.st_mtime_ns}"
        except OSError:
            got = real
        _versions[exe] = got
    return got


def entry_name(key: str, tier: str) -> str:
    """The cache entry of a module's library built by ``tier`` (``key``: the module's digest)."""
    return "c" + cache.digest(key, tier)


def compile_c(c_text: str, command: list[str]) -> bytes:
    """The shared library ``command`` builds from ``c_text`` (in a private temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="recycle-native-") as tmp:
        src, lib = os.path.join(tmp, "module.c"), os.path.join(tmp, "module.so")
        with open(src, "w", encoding="ascii") as f:
            f.write(c_text)
        try:
            proc = subprocess.Popen([*command, "-o", lib, src, "-lm"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as exc:
            raise BuildFailed(f"{command[0]}: {exc}") from None
        with _lock:
            _running.add(proc)
        try:
            _, err = proc.communicate(timeout=BUILD_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise BuildFailed(f"{command[0]} took more than {BUILD_SECONDS} s") from None
        finally:
            with _lock:
                _running.discard(proc)
        if proc.returncode != 0:
            raise BuildFailed(f"{os.path.basename(command[0])} failed: {err.decode('utf-8', 'replace')[:2000]}")
        with open(lib, "rb") as f:
            return f.read()


@atexit.register
def _stop_builds() -> None:
    with _lock:
        for proc in list(_running):
            try:
                proc.kill()
            except OSError:
                pass


_open_files: list[int] = []  # the memory files of the libraries loaded (never closed: load_library)


def load_library(data: bytes):
    """The library ``data`` loaded with ctypes (its ``rc_games``), from a memory file where
    Linux has them, else from a private temporary folder. ctypes releases the GIL during a
    call, so threads play at once."""
    import ctypes

    if hasattr(os, "memfd_create"):
        # the memory file stays open while the process lives: the dynamic loader knows a library
        # by its path, and /proc/self/fd/N of a closed N would name the next library loaded so
        # (it would be given the first one again)
        fd = os.memfd_create("recycle-native", getattr(os, "MFD_CLOEXEC", 0))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        _open_files.append(fd)
        lib = ctypes.CDLL(f"/proc/self/fd/{fd}")
    else:
        with tempfile.TemporaryDirectory(prefix="recycle-native-") as tmp:  # a folder of this user's alone
            path = os.path.join(tmp, "module.so")
            with open(path, "wb") as f:
                f.write(data)
            lib = ctypes.CDLL(path)
    fn = lib.rc_games
    fn.restype = None
    fn.argtypes = [
        ctypes.POINTER(ctypes.c_void_p),
        ctypes.POINTER(ctypes.c_longlong),
        ctypes.POINTER(ctypes.c_longlong),
    ]
    return lib, fn


def cached(key: str, tier: str) -> bytes | None:
    """The library of tier ``tier`` kept for ``key`` (authenticated), or None."""
    items = cache.read(entry_name(key, tier))
    return None if items is None else items.get("library.so")


def keep(key: str, tier: str, data: bytes) -> None:
    cache.write(entry_name(key, tier), {"library.so": data})


__all__ = ["BuildFailed", "compilers", "compile_c", "load_library", "cached", "keep", "version", "entry_name"]


def hand_command(path) -> str:
    """The command that builds the C file ``path`` as recycle does (the best compiler here)."""
    import shlex

    fast, best = compilers()
    _, command = best or fast or ("gcc-O2", ["gcc", *GCC_FLAGS])
    lib = str(path)[:-2] + ".so" if str(path).endswith(".c") else str(path) + ".so"
    return shlex.join([os.path.basename(command[0]), *command[1:], "-o", lib, str(path), "-lm"])
