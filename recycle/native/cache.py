"""The native cache: machine code kept between runs, in a folder that is this user's alone,
every entry authenticated before a byte of it is used.

What is kept is an *entry*: a few named items of bytes (a game's shared library, built from
its C: recycle/native/c/build.py), written as one file ``NAME.entry`` in ``native/`` inside
recycle's cache folder. Loading a library runs whatever it holds, so whoever can write an
entry runs code in every later run. The cache is
untrusted input, kept to the bytecode cache's rules (recycle/lang/python/codecache.py):

* the folder is used only when it is this user's and nobody else can write it: recycle's
  cache folder is checked by the bytecode cache (refused with one line on stderr), and its
  ``native`` folder is opened without following links and must be a folder owned by this
  user; one its group or others could write is made this user's alone (mode 0700) and its
  key replaced, with one line on stderr; one owned by another user is refused, with one line;
* an entry is ``HEADER`` + an HMAC-SHA256 tag + its items; the tag is keyed by a random
  per-user key (``hmac.key`` in the folder, mode 0600) over the entry's name and every byte
  of its items, and is checked before any item is handed to the backend. A truncated,
  emptied, overwritten, planted or foreign entry (another user's, a copy from elsewhere)
  fails the check: it is removed, one line on stderr says so, and the code is made again;
* entries are read only when they are regular files of bounded size, never through a link;
* pruning keeps at most ``MAX_ENTRIES`` entries and ``MAX_BYTES`` bytes, the least recently
  used removed first, and removes only recycle's own files: entries (named as ``ENTRY_NAME``
  and starting with ``HEADER``) and the files of the cache's layout before this one.

The backend reads and writes through this module only. A folder that cannot be used, or an entry that cannot be
read or verified, costs only the compile: the cache never makes a run fail or play
differently.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import stat
import struct
import sys
import threading
import time
from pathlib import Path

from ..lang.python import codecache
from ..lang.python.codecache import _FOLDER_SAFE, _OPEN_NEW, _key, _read_regular

FOLDER = "native"  # inside recycle's cache folder (codecache.cache_dir)
MAX_ENTRIES = 64  # a game's entry is 0.25-0.5 MB: the oldest beyond these bounds are removed
MAX_BYTES = 96 << 20
MAX_ENTRY_BYTES = 64 << 20  # anything larger is not ours
MAX_ITEMS = 4096
# b"RCYN" and the entry format's version: a file that is not an entry fails at its first bytes,
# and pruning recognises recycle's own files by them
HEADER = b"RCYN\x00\x00\x00\x01"
TAG_BYTES = 32  # HMAC-SHA256
NAME = re.compile(r"[a-z][0-9a-f]{40}")  # an entry's name: a kind letter and a digest
ENTRY_NAME = re.compile(r"[a-z][0-9a-f]{40}\.entry")  # its file's: exactly what entry_file makes
ITEM_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,200}")
_TMP = re.compile(r"\.[a-z][0-9a-f]{40}\.entry\.[0-9a-f]{16}\.tmp")  # a write that never finished
STALE_TMP_SECONDS = 3600
# the layouts before this one (module sources, and Numba's cache files beside them: the native
# engine was built with Numba before it was built from C)
_LEGACY_MODULE = re.compile(r"g[0-9a-f]{40}\.py")
_LEGACY_NUMBA = re.compile(r"g[0-9a-f]{40}\.[A-Za-z_][A-Za-z0-9_]*-\d+\.py\d+[a-z]*\.(nbi|\d+\.nbc)")

_lock = threading.RLock()
_said: set[str] = set()  # the lines this process has written on stderr (each once)


def say(line: str) -> None:
    """Write ``recycle: LINE`` on stderr, once per process."""
    if line not in _said:
        _said.add(line)
        print(f"recycle: {line}", file=sys.stderr)


def entry_file(name: str) -> str:
    """The file name of the entry ``name``."""
    return f"{name}.entry"


def digest(*parts: str) -> str:
    """A digest of ``parts`` for an entry's name (40 hex digits)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()[:40]


# --- the folder ---------------------------------------------------------------------------


def base_folder() -> Path | None:
    """recycle's cache folder as the environment names it now (``codecache.cache_dir``)."""
    return codecache.cache_dir()


def folder(base: Path | None = None) -> Path | None:
    """Where native entries are kept (``native`` in recycle's cache folder ``base``, or the
    one the environment names), or None: the cache is turned off (``RECYCLE_NO_CACHE``), or
    the folder is not safe to use (said on stderr)."""
    base = base_folder() if base is None else base
    fd = _open(base)
    if fd is None:
        return None
    os.close(fd)
    return base / FOLDER


def _open(base: Path | None) -> int | None:
    """A descriptor of the native folder when it is safe to use, else None.

    recycle's cache folder is opened and checked by the bytecode cache (this user's, writable
    by nobody else, every step through its descriptor). ``native`` in it is created (0700) when
    missing and opened without following a link; it must be a folder owned by this user. One
    its group or others could write (made so by hand, or by an older recycle) is made this
    user's alone and its key replaced, since others may have read or planted files there."""
    if base is None or not _FOLDER_SAFE:
        return None
    parent = codecache._open_folder(base)
    if parent is None:
        return None
    where = base / FOLDER
    try:
        try:
            os.mkdir(FOLDER, 0o700, dir_fd=parent)
        except FileExistsError:
            pass
        fd = os.open(
            FOLDER, os.O_RDONLY | os.O_DIRECTORY | codecache._NOFOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=parent
        )
    except OSError as exc:  # a link or a file of that name, or no room: compiled each time
        say(f"not using the native cache {where}: {_why_not_opened(parent, exc)}")
        return None
    finally:
        os.close(parent)
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            say(
                f"not using the native cache {where}: it is owned by user {st.st_uid}, not by this user "
                f"({os.geteuid()})"
            )
            os.close(fd)
            return None
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            who = "others" if st.st_mode & stat.S_IWOTH else "its group"
            os.fchmod(fd, 0o700)
            try:
                os.unlink(codecache.KEY_NAME, dir_fd=fd)  # every entry tagged with it is made again
            except FileNotFoundError:
                pass
            say(
                f"the native cache {where} was writable by {who} (mode {stat.S_IMODE(st.st_mode):04o}): "
                f"made it this user's alone (0700); its entries will be compiled again"
            )
        return fd
    except OSError:
        os.close(fd)
        return None


def _why_not_opened(parent: int, exc: OSError) -> str:
    try:
        st = os.stat(FOLDER, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return exc.strerror or "it cannot be opened"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link (never followed)"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    return exc.strerror or "it cannot be opened"


# --- entries ------------------------------------------------------------------------------


def _tag(key: bytes, name: str, body: bytes) -> bytes:
    # the entry's name is in the tag: a genuine entry copied under another name is refused
    return hmac.new(key, HEADER + name.encode("ascii") + b"\0" + body, hashlib.sha256).digest()


def _pack(items: dict[str, bytes]) -> bytes:
    out = [struct.pack(">I", len(items))]
    for item, data in sorted(items.items()):
        raw = item.encode("ascii")
        out += [struct.pack(">H", len(raw)), raw, struct.pack(">Q", len(data)), data]
    return b"".join(out)


def _unpack(body: bytes) -> dict[str, bytes] | None:
    """The items of an entry's body (already authenticated), or None when it is malformed."""
    try:
        (count,), at = struct.unpack_from(">I", body, 0), 4
        if count > MAX_ITEMS:
            return None
        items = {}
        for _ in range(count):
            (size,) = struct.unpack_from(">H", body, at)
            item = body[at + 2 : at + 2 + size].decode("ascii")
            at += 2 + size
            (length,) = struct.unpack_from(">Q", body, at)
            at += 8
            if not ITEM_NAME.fullmatch(item) or item in items or at + length > len(body):
                return None
            items[item] = body[at : at + length]
            at += length
        return items if at == len(body) else None
    except (struct.error, UnicodeDecodeError):
        return None


def read(name: str, base: Path | None = None) -> dict[str, bytes] | None:
    """The items of the entry ``name`` when it is a genuine one (this user's, written by
    recycle, not changed since); None when there is none (or no usable folder). A damaged or
    foreign entry is removed with one line on stderr and gives None: its code is made again.
    ``base``: recycle's cache folder (the environment's when None)."""
    if not NAME.fullmatch(name):
        raise ValueError(f"not an entry name: {name!r}")
    base = base_folder() if base is None else base
    with _lock:
        fd = _open(base)
        if fd is None:
            return None
        try:
            key = _key(fd)
            if key is None:
                return None
            file = entry_file(name)
            try:
                raw = _read_regular(fd, file, MAX_ENTRY_BYTES)
            except FileNotFoundError:
                return None
            except OSError:
                return None
            items = None
            start = len(HEADER) + TAG_BYTES
            if (
                raw is not None
                and len(raw) >= start
                and raw[: len(HEADER)] == HEADER
                and hmac.compare_digest(raw[len(HEADER) : start], _tag(key, name, raw[start:]))
            ):
                items = _unpack(raw[start:])
            if items is None:
                _reject(fd, base / FOLDER / file, raw is not None)
                return None
            _touch(fd, file)
            return items
        finally:
            os.close(fd)


def _reject(fd: int, where: Path, regular: bool) -> None:
    """A damaged or foreign entry: never loaded, removed (a link, FIFO or folder of that name is
    left alone: it is not ours), its code made again."""
    if regular:
        try:
            os.unlink(where.name, dir_fd=fd)
        except OSError:
            pass
        say(f"the native cache entry {where} was damaged or not written by this user: compiling it again")
    else:
        say(f"the native cache entry {where} is not a regular file: left alone, the game compiled each time")


def write(name: str, items: dict[str, bytes], base: Path | None = None) -> bool:
    """Keep ``items`` as the entry ``name`` (written whole under a temporary name, then
    renamed: parallel processes may write the same entry at once), then prune. False when
    there is no usable folder or the disk refused: the code is made again next time.
    ``base``: recycle's cache folder (the environment's when None)."""
    if not NAME.fullmatch(name) or not all(ITEM_NAME.fullmatch(i) for i in items):
        raise ValueError(f"not an entry name or item names: {name!r}")
    with _lock:
        fd = _open(base_folder() if base is None else base)
        if fd is None:
            return False
        try:
            key = _key(fd)
            if key is None:
                return False
            try:
                st = os.stat(entry_file(name), dir_fd=fd, follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode):
                    return False  # a link, FIFO or folder of that name is not ours: left alone
            except FileNotFoundError:
                pass
            except OSError:
                return False
            body = _pack(items)
            tmp = f".{entry_file(name)}.{secrets.token_hex(8)}.tmp"
            try:
                out = os.open(tmp, _OPEN_NEW, 0o600, dir_fd=fd)
                try:
                    with os.fdopen(out, "wb") as f:
                        f.write(HEADER + _tag(key, name, body) + body)
                    os.replace(tmp, entry_file(name), src_dir_fd=fd, dst_dir_fd=fd)
                except BaseException:
                    try:
                        os.unlink(tmp, dir_fd=fd)
                    except OSError:
                        pass
                    raise
            except OSError:
                return False
            prune_folder(fd, keep=entry_file(name))
            return True
        finally:
            os.close(fd)


def _touch(fd: int, file: str) -> None:
    """Mark an entry as used: pruning removes the least recently used first."""
    try:
        os.utime(file, dir_fd=fd, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


# --- pruning ------------------------------------------------------------------------------


def _is_entry(fd: int, file: str) -> bool:
    """Whether ``file`` is a regular file that starts with the entries' header."""
    try:
        f = os.open(file, codecache._OPEN_READ, dir_fd=fd)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(f).st_mode) and os.read(f, len(HEADER)) == HEADER
    except OSError:
        return False
    finally:
        os.close(f)


def prune(base: Path | None = None) -> None:
    """Prune the native folder now (``prune_folder``); nothing without a usable folder."""
    with _lock:
        fd = _open(base_folder() if base is None else base)
        if fd is not None:
            try:
                prune_folder(fd)
            finally:
                os.close(fd)


def prune_folder(fd: int, keep: str | None = None) -> None:
    """Remove the least recently used entries beyond ``MAX_ENTRIES`` or ``MAX_BYTES`` (never
    ``keep``, the one just written), temporary files of writes that never finished, and the
    files of the layout before this one. Only recycle's own files are removed: regular files
    named as recycle names them (entries must also start with ``HEADER``); a user's other
    files, links (never followed) and folders are left alone."""
    entries, now = [], time.time()
    with os.scandir(fd) as it:
        for e in it:
            try:
                if not e.is_file(follow_symlinks=False):
                    if e.name == "__pycache__" and e.is_dir(follow_symlinks=False):
                        _prune_legacy_numba(fd)
                    continue
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if ENTRY_NAME.fullmatch(e.name):
                entries.append((st.st_mtime, st.st_size, e.name))
            elif (_TMP.fullmatch(e.name) and now - st.st_mtime > STALE_TMP_SECONDS) or (
                _LEGACY_MODULE.fullmatch(e.name) and _is_legacy_module(fd, e.name)
            ):
                _unlink(fd, e.name)
    total = sum(size for _, size, _ in entries)
    if len(entries) <= MAX_ENTRIES and total <= MAX_BYTES:  # the usual case: no file is opened
        return
    ours = sorted((t, size, n) for t, size, n in entries if _is_entry(fd, n))
    count = len(ours)
    total = sum(size for _, size, _ in ours)
    for _, size, old in ours:
        if count <= MAX_ENTRIES and total <= MAX_BYTES:
            break
        if old != keep and _unlink(fd, old):
            count -= 1
            total -= size


def _unlink(fd: int, name: str) -> bool:
    try:
        os.unlink(name, dir_fd=fd)
        return True
    except OSError:
        return False


def _is_legacy_module(fd: int, name: str) -> bool:
    """A module source the layout before this one kept (writer.py's first line)."""
    try:
        head = _read_regular(fd, name, 1 << 24)
    except OSError:
        return False
    return head is not None and head.startswith(b'"""Native module of ')


def _prune_legacy_numba(fd: int) -> None:
    """Numba's index and data files of the layout before this one (``__pycache__`` beside
    the modules), never loaded again: removed, and the folder when that empties it."""
    try:
        sub = os.open("__pycache__", os.O_RDONLY | os.O_DIRECTORY | codecache._NOFOLLOW, dir_fd=fd)
    except OSError:
        return
    try:
        st = os.fstat(sub)
        if st.st_uid != os.geteuid():
            return
        with os.scandir(sub) as it:
            names = [e.name for e in it if e.is_file(follow_symlinks=False) and _LEGACY_NUMBA.fullmatch(e.name)]
        for name in names:
            _unlink(sub, name)
    finally:
        os.close(sub)
    try:
        os.rmdir("__pycache__", dir_fd=fd)  # only when nothing else is in it
    except OSError:
        pass


__all__ = ["base_folder", "digest", "entry_file", "folder", "prune", "read", "say", "write"]
