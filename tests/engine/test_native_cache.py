"""The native cache (recycle/native/cache.py) keeps the bytecode cache's rules.

* Entries are authenticated before a byte of a library is mapped: a truncated, emptied or
  overwritten entry, or one written with another user's key, is removed with one line on stderr
  and built again, and ``recycle simulate`` gives the statistics of a clean run (issue 39.7).
* A folder others can write is refused or made this user's alone, with a message (39.5).
* Pruning keeps the folder under its bounds and removes only recycle's own files (39.14).

The first part needs no compile. The second runs ``recycle simulate`` in fresh processes on
one tiny game, built once for the module (``built``) in a cache folder of its own; each test
plays from a copy of that folder.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from recycle.lang.python import codecache
from recycle.native import available
from recycle.native import cache as native_cache

ROOT = Path(__file__).resolve().parents[2]
NAME = "g" + "ab" * 20  # an entry's name (the kind letter and 40 hex digits)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty cache folder of this user's as RECYCLE_CACHE_DIR; this process's stderr lines
    said afresh."""
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(base))
    monkeypatch.delenv("RECYCLE_NO_CACHE", raising=False)
    monkeypatch.setattr(native_cache, "_said", set())
    monkeypatch.setattr(codecache, "_warned", set())
    return base


def entry_path(base: Path, name: str = NAME) -> Path:
    return base / "native" / f"{name}.entry"


# -- entries: written whole, read only when genuine ------------------------------------------


def test_an_entry_is_read_back_as_written(folder, capsys):
    items = {"games.0123": b"\x00machine code\xff" * 100, "other.4567": b""}
    assert native_cache.write(NAME, items)
    assert native_cache.read(NAME) == items
    assert native_cache.read("g" + "cd" * 20) is None  # none of that name
    assert stat.S_IMODE((folder / "native").stat().st_mode) == 0o700
    key = folder / "native" / codecache.KEY_NAME
    assert key.stat().st_size == codecache.KEY_BYTES and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert capsys.readouterr().err == ""


def damaged(raw: bytes, how: str) -> bytes:
    start = len(native_cache.HEADER) + native_cache.TAG_BYTES
    if how == "truncated":
        return raw[: len(raw) * 2 // 3]
    if how == "emptied":
        return raw[:start]
    if how == "overwritten":  # int3 over the middle of the items: SIGTRAP if it were ever run
        middle = (start + len(raw)) // 2
        return raw[:middle] + b"\xcc" * 64 + raw[middle + 64 :]
    if how == "zero bytes":
        return b""
    raise AssertionError(how)


@pytest.mark.parametrize("how", ["truncated", "emptied", "overwritten", "zero bytes"])
def test_a_damaged_entry_is_removed_with_one_line_and_never_read(folder, capsys, how):
    native_cache.write(NAME, {"games.0123": bytes(range(256)) * 40})
    path = entry_path(folder)
    path.write_bytes(damaged(path.read_bytes(), how))
    assert native_cache.read(NAME) is None
    assert not path.exists()  # removed: the next compile writes a genuine one
    assert capsys.readouterr().err.splitlines() == [
        f"recycle: the native cache entry {path} was damaged or not written by this user: compiling it again"
    ]


def test_no_flipped_bit_of_an_entry_is_ever_read(folder, monkeypatch):
    """Every bit of a small entry flipped, one at a time: each is refused (and removed)."""
    import random

    monkeypatch.setattr(native_cache, "say", lambda line: None)
    items = {"games.0123": bytes(range(40)), "play.4567": b"\xcc" * 24}
    native_cache.write(NAME, items)
    genuine = entry_path(folder).read_bytes()
    bits = random.Random(7).sample(range(len(genuine) * 8), 400)
    for bit in bits:
        flipped = bytearray(genuine)
        flipped[bit // 8] ^= 1 << (bit % 8)
        entry_path(folder).write_bytes(bytes(flipped))
        assert native_cache.read(NAME) is None, bit
        assert not entry_path(folder).exists()
    entry_path(folder).write_bytes(genuine)
    assert native_cache.read(NAME) == items


def test_an_entry_of_another_key_or_name_is_refused(folder, capsys):
    """Another user's entry (their key), or a genuine entry copied under another name."""
    native_cache.write(NAME, {"games.0123": b"code"})
    genuine = entry_path(folder).read_bytes()
    other = "g" + "cd" * 20
    entry_path(folder, other).write_bytes(genuine)
    assert native_cache.read(other) is None
    key = folder / "native" / codecache.KEY_NAME
    key.write_bytes(b"k" * codecache.KEY_BYTES)  # as if written with another user's key
    assert native_cache.read(NAME) is None
    assert len(capsys.readouterr().err.splitlines()) == 2


def test_what_is_not_a_regular_file_is_never_read_nor_removed(folder, capsys, tmp_path):
    native_cache.write(NAME, {"games.0123": b"code"})
    real = tmp_path / "elsewhere.entry"
    real.write_bytes(entry_path(folder).read_bytes())
    entry_path(folder).unlink()
    entry_path(folder).symlink_to(real)  # a genuine entry, but through a link
    assert native_cache.read(NAME) is None
    assert native_cache.write(NAME, {"games.0123": b"new code"}) is False
    assert entry_path(folder).is_symlink() and real.read_bytes() == entry_path(folder).read_bytes()
    assert capsys.readouterr().err.splitlines() == [
        (
            f"recycle: the native cache entry {entry_path(folder)} is not a regular file: left alone, the game "
            f"compiled each time"
        )
    ]


# -- the folder ------------------------------------------------------------------------------


def test_a_cache_folder_others_can_write_is_refused_with_a_message(folder, capsys):
    folder.chmod(0o777)
    assert native_cache.folder() is None
    assert native_cache.write(NAME, {"games.0123": b"code"}) is False
    assert not (folder / "native").exists()
    err = capsys.readouterr().err
    assert err.splitlines() == [f"recycle: not using the bytecode cache {folder}: it is writable by others (mode 0777)"]


def test_a_native_folder_others_can_write_is_made_this_users_alone_and_its_key_replaced(folder, capsys):
    native_cache.write(NAME, {"games.0123": b"code"})
    native = folder / "native"
    key = (native / codecache.KEY_NAME).read_bytes()
    native.chmod(0o777)
    assert native_cache.read(NAME) is None  # tagged with the replaced key: compiled again
    assert stat.S_IMODE(native.stat().st_mode) == 0o700
    assert (native / codecache.KEY_NAME).read_bytes() != key
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        f"recycle: the native cache {native} was writable by others (mode 0777): made it this "
        f"user's alone (0700); its entries will be compiled again"
    )
    assert len(err) == 2 and "damaged or not written by this user" in err[1]


def test_a_native_folder_that_is_a_link_is_not_used(folder, capsys, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (folder / "native").symlink_to(elsewhere)
    assert native_cache.folder() is None
    assert native_cache.write(NAME, {"games.0123": b"code"}) is False
    assert list(elsewhere.iterdir()) == []
    assert capsys.readouterr().err.splitlines() == [
        f"recycle: not using the native cache {folder / 'native'}: it is a symbolic link (never followed)"
    ]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder of another user's needs root")
def test_a_native_folder_of_another_user_is_refused(folder, capsys):
    native = folder / "native"
    native.mkdir(mode=0o700)
    os.chown(native, 12345, 12345)
    assert native_cache.folder() is None
    assert capsys.readouterr().err.splitlines() == [
        f"recycle: not using the native cache {native}: it is owned by user 12345, not by this user ({os.geteuid()})"
    ]


# -- pruning ---------------------------------------------------------------------------------


def names(n: int, kind: str = "g") -> list[str]:
    return [kind + f"{i:040x}" for i in range(n)]


def test_pruning_keeps_the_bounds_and_removes_the_least_recently_used(folder, monkeypatch):
    every = names(9)
    for i, name in enumerate(every):
        native_cache.write(name, {"games.0": b"x" * 100})
        os.utime(entry_path(folder, name), (1_000_000 + i, 1_000_000 + i))
    native_cache.read(every[0])  # used now: the most recent
    monkeypatch.setattr(native_cache, "MAX_ENTRIES", 5)
    native_cache.prune()
    kept = sorted(p.name.split(".")[0] for p in (folder / "native").glob("*.entry"))
    assert kept == sorted([every[0], *every[-4:]])


def test_pruning_keeps_the_size_bound_and_never_the_entry_just_written(folder, monkeypatch):
    monkeypatch.setattr(native_cache, "MAX_BYTES", 10_000)
    for i, name in enumerate(names(6)):
        native_cache.write(name, {"games.0": b"x" * 3000})
        os.utime(entry_path(folder, name), (1_000_000 + i, 1_000_000 + i))
    big = "g" + "f" * 40
    native_cache.write(big, {"games.0": b"x" * 20_000})  # larger than the bound alone: kept
    kept = sorted(p.name.split(".")[0] for p in (folder / "native").glob("*.entry"))
    assert kept == [big]
    native_cache.write(names(1)[0], {"games.0": b"x" * 3000})
    assert [p.name.split(".")[0] for p in (folder / "native").glob("*.entry")] == names(1)


def test_pruning_removes_nothing_that_is_not_recycles_own(folder, monkeypatch, tmp_path):
    monkeypatch.setattr(native_cache, "MAX_ENTRIES", 2)
    native = folder / "native"
    native_cache.write(NAME, {"games.0": b"x"})
    target = tmp_path / "target.entry"
    target.write_bytes(entry_path(folder).read_bytes())
    theirs = {
        "notes.txt": b"mine",
        "g" + "0" * 39 + "9.entry": b"not an entry: no header",  # named like one
        "g" + "1" * 40 + ".entry.bak": entry_path(folder).read_bytes(),
        "g" + "2" * 40 + ".py": b"print('a module of mine')",  # named like the old layout's
    }
    for name, data in theirs.items():
        (native / name).write_bytes(data)
        os.utime(native / name, (1, 1))
    (native / ("g" + "3" * 40 + ".entry")).symlink_to(target)
    (native / ("g" + "4" * 40 + ".entry")).mkdir()
    (native / "__pycache__").mkdir()
    (native / "__pycache__" / "mine.nbi").write_bytes(b"x")
    # the layout before this one: its module sources and Numba's files are recycle's own
    legacy_module = native / ("g" + "5" * 40 + ".py")
    legacy_module.write_text('"""Native module of \'war.rcy\', written by recycle/native/writer.py."""\n')
    legacy_numba = [
        native / "__pycache__" / ("g" + "5" * 40 + ".games-600.py311.nbi"),
        native / "__pycache__" / ("g" + "5" * 40 + ".games-600.py311.1.nbc"),
    ]
    for path in legacy_numba:
        path.write_bytes(b"\x80pickle")
    for name in names(4):
        native_cache.write(name, {"games.0": b"x"})
    real = [name for name in [NAME, *names(4)] if entry_path(folder, name).exists()]
    assert real == names(4)[-2:]  # the bound: the two most recent of recycle's entries
    for name, data in theirs.items():
        assert (native / name).read_bytes() == data
    assert (native / ("g" + "3" * 40 + ".entry")).is_symlink() and target.exists()
    assert (native / ("g" + "4" * 40 + ".entry")).is_dir()
    assert (native / "__pycache__" / "mine.nbi").exists()
    assert not legacy_module.exists() and not any(p.exists() for p in legacy_numba)


# -- recycle simulate, in fresh processes -----------------------------------------------------

GAME = """(game
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 (do ((shuffle (game iloc STOCK))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (choice (
   (move (top (game iloc STOCK)) (top ((current player) iloc HAND)))
   (move (top (game iloc STOCK)) (top (game vloc PILE))))))
 (scoring max (size ((current player) iloc HAND))))
"""

native_only = pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")


def simulate(game: Path, cache: Path, **env: str) -> tuple[dict, list[str], subprocess.CompletedProcess]:
    """``recycle simulate GAME --engine native`` in a fresh process: its statistics (less the
    timings), its stderr lines about the native cache, and the process."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("RECYCLE_")}
    # tcc alone: one library a game, made before the process ends (gcc's is built in the background)
    environ.update(PYTHONPATH=str(ROOT), RECYCLE_CACHE_DIR=str(cache), RECYCLE_NATIVE_CC="tcc")
    environ.update(env)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "recycle",
            "simulate",
            str(game),
            "-n",
            "300",
            "--seed",
            "5",
            "--engine",
            "native",
            "--json",
            "--no-progress",
        ],
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    stats = json.loads(done.stdout)
    for timing in ("seconds", "rollouts_per_second"):
        stats.pop(timing)
    return stats, [line for line in done.stderr.splitlines() if "native cache" in line], done


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The tiny game, the statistics of a clean run, and a cache folder holding its entries."""
    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    where = tmp_path_factory.mktemp("native-cache")
    game = where / "tiny.rcy"
    game.write_text(GAME)
    cache = where / "cache"
    cache.mkdir(mode=0o700)
    clean, lines, _ = simulate(game, cache)
    assert lines == []
    entries = sorted(p.name[0] for p in (cache / "native").glob("*.entry"))
    assert entries == ["c", "m"]  # the module's library (the runtime is in it), the module kept by the game
    return game, clean, cache


def copy_of(built, tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    shutil.copytree(built[2], cache)
    return cache


def module_entry(cache: Path) -> Path:
    (path,) = (cache / "native").glob("c*.entry")
    return path


@native_only
def test_a_second_run_loads_the_machine_code_and_plays_the_same_games(built, tmp_path):
    game, clean, _ = built
    cache = copy_of(built, tmp_path)
    before = {p.name: p.read_bytes() for p in (cache / "native").glob("*.entry")}
    stats, lines, done = simulate(game, cache)
    assert stats == clean and lines == []
    assert "building" not in done.stderr  # loaded, not built
    assert {p.name: p.read_bytes() for p in (cache / "native").glob("*.entry")} == before


@native_only
@pytest.mark.parametrize("how", ["truncated", "emptied", "overwritten"])
def test_a_damaged_entry_is_built_again_with_one_line(built, tmp_path, how):
    """A truncated, emptied or overwritten library (which the loader would map and run): each
    is a rebuild, one line on stderr, the same statistics."""
    game, clean, _ = built
    cache = copy_of(built, tmp_path)
    path = module_entry(cache)
    path.write_bytes(damaged(path.read_bytes(), how))
    stats, lines, _ = simulate(game, cache)
    assert stats == clean
    assert lines == [
        (f"recycle: the native cache entry {path} was damaged or not written by this user: compiling it again")
    ]
    # the entry is genuine again: the next run loads it, silently
    assert simulate(game, cache)[:2] == (clean, [])


@native_only
def test_an_entry_of_another_user_is_built_again(built, tmp_path):
    game, clean, _ = built
    cache = copy_of(built, tmp_path)
    (cache / "native" / codecache.KEY_NAME).write_bytes(b"k" * codecache.KEY_BYTES)  # their key, not ours
    stats, lines, _ = simulate(game, cache)
    assert stats == clean
    assert len(lines) == 2 and all("damaged or not written by this user" in line for line in lines)


@native_only
def test_a_cache_folder_others_can_write_is_not_used_and_the_run_plays_the_same(built, tmp_path):
    game, clean, _ = built
    cache = copy_of(built, tmp_path)
    cache.chmod(0o777)
    stats, _, done = simulate(game, cache)
    assert stats == clean
    assert f"recycle: not using the bytecode cache {cache}: it is writable by others (mode 0777)" in done.stderr
    assert "building" in done.stderr  # its entries were not loaded


@native_only
def test_a_native_folder_its_group_can_write_is_made_this_users_alone(built, tmp_path):
    game, clean, _ = built
    cache = copy_of(built, tmp_path)
    (cache / "native").chmod(0o775)
    stats, lines, _ = simulate(game, cache)
    assert stats == clean
    assert lines[0] == (
        f"recycle: the native cache {cache / 'native'} was writable by its group (mode 0775): "
        f"made it this user's alone (0700); its entries will be compiled again"
    )
    assert stat.S_IMODE((cache / "native").stat().st_mode) == 0o700
    assert simulate(game, cache)[:2] == (clean, [])
