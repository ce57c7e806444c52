"""The compiled-bytecode cache of generated game modules, on disk and in memory.

(The generated-Python engine it served is retired, issue 41: ``compiled`` has no caller in
recycle now. The folder's checks and the authenticated entries described here are what the
native engine's cache folder is held to and builds on: recycle/native/engine.py.)

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
``RECYCLE_NO_CACHE=1`` turns the cache off.

``marshal.loads`` trusts its input completely (a flipped bit can crash the interpreter or
change what the game does), and whoever can write an entry runs code in every later load.
So the cache is untrusted input, and:

* the folder is used only when it is this user's and nobody else can write it (otherwise
  no disk cache, and one line on stderr per process saying why);
* an entry is ``HEADER`` + an HMAC-SHA256 tag + the marshalled code; the tag is keyed by a
  random per-user key (``KEY_NAME`` in the folder, mode 0600) over the entry's full key
  digest and the bytes, and is checked before ``marshal.loads`` sees a byte. A damaged,
  truncated, planted or foreign entry (another user's, another machine's) fails the check
  and is compiled again;
* entries are opened without following symbolic links and read only when they are regular
  files of bounded size (a FIFO named like an entry must not block the load);
* pruning removes only files named as recycle names entries that start with its header.

A folder that cannot be written, or an entry that cannot be read or verified, costs only
the compile: the cache never makes a load fail or play differently.
"""

from __future__ import annotations

import hashlib
import hmac
import marshal
import os
import re
import secrets
import stat
import sys
from pathlib import Path
from types import CodeType

from ...version import __version__

MAX_ENTRIES = 256  # the oldest entries beyond this are removed when one is added
MAX_IN_MEMORY = 16  # modules this process keeps, so that loading a game again reads no file
MAX_ENTRY_BYTES = 64 << 20  # the largest game's entry is ~0.3 MB: anything past this is not ours

# b"RCYC" and the entry format's version: an entry of an older format (or a file that is not
# an entry) fails at the first bytes, and pruning recognises recycle's own files by them.
HEADER = b"RCYC\x00\x00\x00\x02"
TAG_BYTES = 32  # HMAC-SHA256
KEY_NAME = "hmac.key"  # never matches ENTRY_NAME, so pruning cannot remove it
KEY_BYTES = 32
ENTRY_NAME = re.compile(r"[0-9a-f]{40}\.code")  # exactly what entry_name makes

# O_NOFOLLOW: a symbolic link named like an entry (or the key) is never followed out of the
# folder. O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever;
# it changes nothing for a regular file. O_CLOEXEC: parallel workers' children inherit nothing.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_READ = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# The folder is used only where every step can go through its descriptor without following
# links (Linux, macOS, the BSDs); elsewhere the process keeps its memory of modules only.
_FOLDER_SAFE = (
    _NOFOLLOW != 0
    and hasattr(os, "O_DIRECTORY")
    and hasattr(os, "geteuid")
    and {os.open, os.unlink, os.link, os.rename, os.utime} <= os.supports_dir_fd
    and os.scandir in os.supports_fd
)

_in_memory: dict[str, CodeType] = {}
_warned: set[str] = set()  # folders this process has already said it does not use


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


def _key_digest(source: str, filename: str) -> bytes:
    key = hashlib.sha256()
    for part in (__version__, sys.implementation.cache_tag or "", filename, source):
        key.update(part.encode("utf-8", "surrogatepass"))
        key.update(b"\0")
    return key.digest()


def entry_name(source: str, filename: str) -> str:
    """The file name of the entry for ``source`` compiled as ``filename``."""
    return _key_digest(source, filename).hex()[:40] + ".code"


def compiled(source: str, filename: str) -> tuple[CodeType, bool]:
    """The code object of ``source`` (compiled as ``filename``), and whether it was read
    from the cache (this process's memory or the folder)."""
    folder = cache_dir()
    if folder is None:
        return _compile(source, filename), False
    digest = _key_digest(source, filename)
    name = digest.hex()[:40] + ".code"
    code = _in_memory.get(name)
    if code is not None:
        # this process's own compile or verified read: trusted; only the folder's LRU order
        _with_folder(folder, lambda dfd: _touch(dfd, name))
        return code, True
    fd = _open_folder(folder)
    if fd is None:  # no usable folder: memory only
        code = _compile(source, filename)
        _remember(name, code)
        return code, False
    try:
        key = _key(fd)
        found, free = _read_entry(fd, name, key, digest, filename) if key else (None, False)
        if found is not None:
            _remember(name, found)
            return found, True
        code = _compile(source, filename)
        if key and free:
            _store(fd, name, _entry(key, digest, marshal.dumps(code)))
        _remember(name, code)
        return code, False
    finally:
        os.close(fd)


def forget() -> None:
    """Empty this process's memory of compiled modules (the folder keeps its entries)."""
    _in_memory.clear()


def _remember(name: str, code: CodeType) -> None:
    if len(_in_memory) >= MAX_IN_MEMORY:
        _in_memory.pop(next(iter(_in_memory), None), None)  # the first remembered
    _in_memory[name] = code


def _compile(source: str, filename: str) -> CodeType:
    return compile(source, filename, "exec")


# --- the folder --------------------------------------------------------------------------


def _warn(folder: Path, why: str) -> None:
    if str(folder) not in _warned:
        _warned.add(str(folder))
        print(f"recycle: not using the bytecode cache {folder}: {why}", file=sys.stderr)


def _open_folder(folder: Path) -> int | None:
    """A descriptor of the cache folder when it is safe to use, else None.

    The folder is created (mode 0700) when missing. It is then opened, following a symbolic
    link if it is one (``~/.cache`` on another disk is common), and the checks are made on
    the folder actually opened (``fstat`` of the descriptor): a directory, owned by this
    user, writable by nobody else. Every later step (the key, entries, pruning) goes through
    the descriptor, so renaming or replacing the path after the check changes nothing. A
    folder others could write is refused with one line on stderr: an entry there could have
    been planted (the tag would refuse it, but the key itself would be theirs to replace).
    A folder that cannot be created or opened is silent, as before: it costs the compile."""
    if not _FOLDER_SAFE:
        return None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):  # ValueError: a NUL in the environment variable
        return None
    try:
        st = os.fstat(fd)
        why = None
        if not stat.S_ISDIR(st.st_mode):
            why = "it is not a folder"
        elif st.st_uid != os.geteuid():
            why = f"it is owned by user {st.st_uid}, not by this user ({os.geteuid()})"
        elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            who = "others" if st.st_mode & stat.S_IWOTH else "its group"
            why = f"it is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o})"
        if why is None:
            return fd
        _warn(folder, why)
    except OSError:
        pass
    os.close(fd)
    return None


def _with_folder(folder: Path, action) -> None:
    fd = _open_folder(folder)
    if fd is not None:
        try:
            action(fd)
        finally:
            os.close(fd)


def _read_regular(dfd: int, name: str, limit: int) -> bytes | None:
    """The bytes of ``name`` in the folder when it is a regular file (not followed if a
    link) of at most ``limit`` bytes; None when absent or anything else. Raises
    FileNotFoundError when there is nothing of that name."""
    try:
        fd = os.open(name, _OPEN_READ, dir_fd=dfd)
    except FileNotFoundError:
        raise
    except OSError:  # ELOOP: a symbolic link; EACCES, ...
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:  # the file may grow while read: never past the bound
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks) if size <= limit else None
    finally:
        os.close(fd)


# --- the key ------------------------------------------------------------------------------


def _key(dfd: int) -> bytes | None:
    """This user's key of entry tags, made when missing or unfit; None when it cannot be.

    It is in the folder, which only this user can write (``_open_folder``), so nobody else
    can replace it. A key that is not a regular file of ``KEY_BYTES`` bytes, owned by this
    user and readable by nobody else may be known to others: it is replaced (every entry
    tagged with it is then compiled again once)."""
    key = _usable_key(dfd)
    if key is not None:
        return key
    try:
        os.unlink(KEY_NAME, dir_fd=dfd)  # the unfit one (never followed: a link is removed)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    # written complete under a temporary name, then linked: link() fails if another process
    # made the key meanwhile, so nobody ever reads a half-written key
    new = secrets.token_bytes(KEY_BYTES)
    tmp = f".{KEY_NAME}.{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(tmp, _OPEN_NEW, 0o600, dir_fd=dfd)
        try:
            os.write(fd, new)
            os.fchmod(fd, 0o600)  # whatever the umask
        finally:
            os.close(fd)
        try:
            os.link(tmp, KEY_NAME, src_dir_fd=dfd, dst_dir_fd=dfd)
            return new
        except FileExistsError:
            return _usable_key(dfd)  # another process made it first: use theirs
        finally:
            os.unlink(tmp, dir_fd=dfd)
    except OSError:
        return None


def _usable_key(dfd: int) -> bytes | None:
    try:
        fd = os.open(KEY_NAME, _OPEN_READ, dir_fd=dfd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077 or st.st_size != KEY_BYTES:
            return None
        key = os.read(fd, KEY_BYTES + 1)
        return key if len(key) == KEY_BYTES else None
    except OSError:
        return None
    finally:
        os.close(fd)


# --- entries ------------------------------------------------------------------------------


def _tag(key: bytes, digest: bytes, data: bytes) -> bytes:
    # the digest of (version, Python, name, source) is in the tag: a genuine entry of another
    # game or version copied to this entry's name is refused like any other
    return hmac.new(key, HEADER + digest + data, hashlib.sha256).digest()


def _entry(key: bytes, digest: bytes, data: bytes) -> bytes:
    return HEADER + _tag(key, digest, data) + data


def _read_entry(dfd: int, name: str, key: bytes, digest: bytes, filename: str) -> tuple[CodeType | None, bool]:
    """The entry's code when it is a genuine one, and whether a new entry may be stored
    under its name (nothing is there, or a regular file that is not a valid entry)."""
    try:
        raw = _read_regular(dfd, name, MAX_ENTRY_BYTES)
    except FileNotFoundError:
        return None, True
    except OSError:
        return None, False
    if raw is None:
        return None, False  # a link, FIFO, device or folder of that name: left alone
    start = len(HEADER) + TAG_BYTES
    if len(raw) <= start or raw[: len(HEADER)] != HEADER:
        return None, True
    data = raw[start:]
    if not hmac.compare_digest(raw[len(HEADER) : start], _tag(key, digest, data)):
        return None, True  # damaged or not written with this key: never unmarshalled
    try:
        code = marshal.loads(data)
    except (ValueError, EOFError, TypeError):  # only if the key leaked: compiled again
        return None, True
    if not isinstance(code, CodeType) or code.co_filename != filename:
        return None, True
    _touch(dfd, name)
    return code, False


def _store(dfd: int, name: str, data: bytes) -> None:
    """Write one entry atomically (parallel workers may store the same game at once)."""
    tmp = f".{name}.{secrets.token_hex(8)}.tmp"
    try:
        fd = os.open(tmp, _OPEN_NEW, 0o600, dir_fd=dfd)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            os.unlink(tmp, dir_fd=dfd)
            raise
        _prune(dfd)
    except OSError:
        pass  # a read-only or full disk: the game still loads, compiled once per process


def _touch(dfd: int, name: str) -> None:
    """Mark an entry as used, so that pruning removes the least recently used."""
    try:
        os.utime(name, dir_fd=dfd, follow_symlinks=False)
    except (OSError, NotImplementedError):
        pass


def _is_entry(dfd: int, name: str) -> bool:
    """Whether ``name`` is a regular file that starts with recycle's header."""
    try:
        fd = os.open(name, _OPEN_READ, dir_fd=dfd)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and os.read(fd, len(HEADER)) == HEADER
    except OSError:
        return False
    finally:
        os.close(fd)


def _prune(dfd: int) -> None:
    """Remove the least recently used entries beyond ``MAX_ENTRIES``. Only recycle's own
    entries count and are removed: regular files named as ``entry_name`` names them whose
    first bytes are ``HEADER``. A user's other ``*.code`` files, links (never followed) and
    special files are left alone."""
    named = []
    with os.scandir(dfd) as it:
        for e in it:
            if ENTRY_NAME.fullmatch(e.name) and e.is_file(follow_symlinks=False):
                try:
                    named.append((e.stat(follow_symlinks=False).st_mtime, e.name))
                except OSError:
                    pass
    if len(named) <= MAX_ENTRIES:  # the usual case: no file is opened
        return
    ours = sorted((t, n) for t, n in named if _is_entry(dfd, n))
    for _, old in ours[: max(0, len(ours) - MAX_ENTRIES)]:
        try:
            os.unlink(old, dir_fd=dfd)
        except OSError:
            pass


__all__ = ["cache_dir", "compiled", "entry_name", "forget"]
