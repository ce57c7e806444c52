"""Every write of the studio goes through ``write_file``: a saved game, a table's record.

Reads may follow a link that stays inside the served folder; a write follows no link at
all. Why so strict: a write through a link changes the file the link names, which may lie
outside the folder (a record written there, an outside file overwritten) or inside it under
another name (``game.rcy`` a link to ``notes.txt`` would turn the ``.rcy``-only save rule
into a write of any file). So every folder on the way is opened from the served folder one
name at a time with ``O_NOFOLLOW``; the new content goes to a fresh temporary file made with
``O_CREAT | O_EXCL | O_NOFOLLOW`` beside the target, then renamed over it (a rename replaces
the name, never what a link would point to); an existing target that is a link, a folder, a
pipe or a device is refused. Every name written is in a safe alphabet (letters, digits,
``_``, ``-`` and ``.``, not first): a file the studio makes can be named in a shell,
unquoted, without running anything — a game named ``w$(touch X).rcy`` gives a record named
``w__touch_X_-table-1a2b3c4d5e6f.json``.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
from pathlib import Path, PurePosixPath

from .security import Refused, refuse_path

SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,199}\Z")
MAX_WRITE_BYTES = 4_000_000
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def safe_name(text: str) -> str:
    """``text`` made into a name of the safe alphabet: every other character becomes ``_``
    (a name must not start with ``.`` or ``-``: a hidden file, an option to a command)."""
    name = re.sub(r"[^A-Za-z0-9_.\-]", "_", text)[:180]
    return "_" + name if not name or name[0] in ".-" else name


def check_name(rel: str, suffixes: tuple[str, ...]) -> list[str]:
    """The names of the path ``rel`` (relative to the served folder), each in the safe
    alphabet and the last ending in one of ``suffixes``; ``Refused`` otherwise."""
    refuse_path(rel)
    parts = [p for p in PurePosixPath(rel).parts if p != "."]
    if not parts or "\\" in rel:
        raise Refused(400, "a file name is needed (with / between folders)")
    for p in parts:
        if not SAFE_NAME.match(p):
            raise Refused(
                400,
                f"the studio writes only names of letters, digits, _, - and . (not first): {p!r} has other characters",
            )
    if not parts[-1].endswith(suffixes):
        raise Refused(400, f"the studio saves only {' or '.join(suffixes)} files here")
    return parts


def _open_folder(fd: int, name: str, rel: str, make: bool) -> int:
    try:
        return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
    except FileNotFoundError:
        if not make:
            raise Refused(404, f"no such folder for {rel}") from None
        try:
            os.mkdir(name, 0o755, dir_fd=fd)
        except FileExistsError:
            pass  # made meanwhile: opened (and checked) below
        return _open_folder(fd, name, rel, False)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
            raise Refused(403, f"{rel}: {name} is a link or not a folder: the studio writes through no link") from None
        raise


def write_file(
    root: Path,
    rel: str,
    data: bytes,
    suffixes: tuple[str, ...] = (".rcy",),
    make_folders: bool = False,
    mode: int = 0o644,
) -> Path:
    """Write ``data`` as the file ``rel`` inside the folder ``root`` (see the module
    docstring): no link followed, no name outside the safe alphabet, a regular file made or
    replaced whole. ``make_folders`` makes missing folders on the way (a table's ``records``);
    ``mode`` is a new file's permissions (a replaced one keeps its own).
    Returns the file's path; ``Refused`` (a 4xx) for what it will not write."""
    parts = check_name(rel, suffixes)
    if len(data) > MAX_WRITE_BYTES:
        raise Refused(413, f"the studio writes at most {MAX_WRITE_BYTES} bytes to a file")
    root = Path(root).resolve()
    fd = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        for name in parts[:-1]:
            inner = _open_folder(fd, name, rel, make_folders)
            os.close(fd)
            fd = inner
        name = parts[-1]
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise Refused(403, f"{rel} is a link: the studio writes through no link")
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise Refused(400, f"{rel} is not a regular file")
        temp = f".{name}.{secrets.token_hex(6)}.tmp"
        out = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd=fd)
        try:
            if st is not None:  # the file keeps its permissions
                os.fchmod(out, stat.S_IMODE(st.st_mode))
            with os.fdopen(out, "wb") as f:
                f.write(data)
            os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=fd)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)
    return root.joinpath(*parts)


def save_game(root: Path, rel: str, text: str, max_bytes: int) -> Path:
    """The editor's Save: the game file ``rel`` (``.rcy``) in an existing folder of ``root``."""
    data = text.encode("utf-8", "surrogateescape")
    if len(data) > max_bytes:
        raise Refused(413, f"a game file is at most {max_bytes} bytes")
    return write_file(root, rel, data, (".rcy",))


def save_record(records: Path, game_name: str, record: dict) -> str:
    """A table's record of one deal, ``<game>-table-<random>.json`` (the game's name in the
    safe alphabet; the record holds the deal's secret, so its name is not made from it and
    it is readable by the owner only) in the folder ``records`` (made if missing, never
    through a link); returns its path from the folder above ``records``
    (``records/war-table-1a2b3c4d5e6f.json``)."""
    from ..study.records import record_bytes

    records = Path(records)
    name = f"{safe_name(f'{game_name}-table-{secrets.token_hex(6)}')}.json"
    rel = f"{safe_name(records.name)}/{name}"
    write_file(records.parent, rel, record_bytes(record, records / name), (".json",), make_folders=True, mode=0o600)
    return rel
