"""The on-disk bytecode cache of generated game modules (recycle/lang/python/codecache.py)."""

import hashlib
import hmac
import marshal
import os
import random
import stat
import subprocess
import sys

import pytest

import recycle
from recycle.engine.transcript import transcript
from recycle.lang.python import codecache

from ..conftest import GAMES

SCHWIMMEN = GAMES / "schwimmen.rcy"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(folder))
    monkeypatch.delenv("RECYCLE_NO_CACHE", raising=False)
    codecache.forget()
    codecache._warned.clear()
    yield folder
    codecache.forget()
    codecache._warned.clear()


def played(game, seed=3):
    r = game.play(seed=seed, record=True, describe=True)
    return "\n".join(transcript(game, r))


def code_of(entry: bytes):
    """The code object an entry holds (past its header and tag)."""
    assert entry.startswith(codecache.HEADER)
    return marshal.loads(entry[len(codecache.HEADER) + codecache.TAG_BYTES:])


def refuse_to_compile(monkeypatch):
    def refuse(source, filename):
        raise AssertionError(f"{filename} was compiled, not read from the cache")
    monkeypatch.setattr(codecache, "_compile", refuse)


def test_a_second_load_reads_the_bytecode_instead_of_compiling(cache, monkeypatch):
    first = recycle.load(SCHWIMMEN)
    entries = list(cache.glob("*.code"))
    assert len(entries) == 1 and not first.bytecode_from_cache
    refuse_to_compile(monkeypatch)
    codecache.forget()  # as a new process: the folder's entry
    second = recycle.load(SCHWIMMEN)
    assert second.bytecode_from_cache
    assert second.generated == first.generated
    assert played(second) == played(first)
    assert list(cache.glob("*.code")) == entries
    entries[0].unlink()  # the process's memory
    third = recycle.load(SCHWIMMEN)
    assert third.bytecode_from_cache and played(third) == played(first)


def test_a_damaged_entry_is_compiled_again_and_replaced(cache):
    reference = played(recycle.load(SCHWIMMEN))
    (entry,) = cache.glob("*.code")
    entry.write_bytes(b"\xff not bytecode")
    codecache.forget()
    assert played(recycle.load(SCHWIMMEN)) == reference
    assert code_of(entry.read_bytes()).co_filename.startswith("<recycle generated:")


def test_an_unwritable_folder_costs_only_the_compile(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(blocker / "cache"))
    codecache.forget()
    reference = played(recycle.load(SCHWIMMEN, engine="closures"))
    game = recycle.load(SCHWIMMEN)
    assert not game.bytecode_from_cache and played(game) == reference
    codecache.forget()


def test_turned_off_it_writes_nothing(cache, monkeypatch):
    monkeypatch.setenv("RECYCLE_NO_CACHE", "1")
    assert codecache.cache_dir() is None
    recycle.load(SCHWIMMEN)
    assert not cache.exists()


def test_the_default_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("RECYCLE_CACHE_DIR", raising=False)
    monkeypatch.delenv("RECYCLE_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert codecache.cache_dir() == tmp_path / "recycle"


def test_without_a_home_folder_there_is_no_cache(monkeypatch):
    for name in ("RECYCLE_CACHE_DIR", "RECYCLE_NO_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(codecache.os.path, "expanduser", lambda path: path)
    assert codecache.cache_dir() is None


def test_an_entry_is_keyed_by_source_name_and_version(monkeypatch):
    key = codecache.entry_name("x = 1\n", "<a>")
    assert codecache.entry_name("x = 2\n", "<a>") != key
    assert codecache.entry_name("x = 1\n", "<b>") != key
    monkeypatch.setattr(codecache, "__version__", "99.0")
    assert codecache.entry_name("x = 1\n", "<a>") != key


def test_the_least_recently_used_entries_are_removed(cache, monkeypatch):
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 2)
    sources = {name: f"{name} = 1\n" for name in "abc"}
    entry = {name: cache / codecache.entry_name(src, f"<{name}>") for name, src in sources.items()}
    for name in "ab":
        codecache.compiled(sources[name], f"<{name}>")
    os.utime(entry["a"], (1, 1))  # both stored long ago, a first
    os.utime(entry["b"], (2, 2))
    codecache.compiled(sources["a"], "<a>")  # a used again: b is now the least recently used
    codecache.compiled(sources["c"], "<c>")
    assert sorted(cache.glob("*.code")) == sorted([entry["a"], entry["c"]])
    refuse_to_compile(monkeypatch)
    namespace = {}
    code, from_cache = codecache.compiled(sources["c"], "<c>")
    assert from_cache
    exec(code, namespace)
    assert namespace["c"] == 1


def test_the_process_remembers_the_last_modules_only(cache, monkeypatch):
    monkeypatch.setattr(codecache, "MAX_IN_MEMORY", 2)
    for name in "abc":
        codecache.compiled(f"{name} = 1\n", f"<{name}>")
    for entry in cache.glob("*.code"):
        entry.unlink()
    refuse_to_compile(monkeypatch)
    assert codecache.compiled("c = 1\n", "<c>")[1] and codecache.compiled("b = 1\n", "<b>")[1]
    with pytest.raises(AssertionError, match="<a> was compiled"):
        codecache.compiled("a = 1\n", "<a>")


# --- untrusted cache folders and entries (issue 25, items 4-6) ---------------------------

def loaded_fresh(path=SCHWIMMEN):
    """A load as a new process makes it: the folder's entry, not this process's memory."""
    codecache.forget()
    return recycle.load(path)


def check_same_game(entry, damaged: bytes, original: bytes, reference: str, what: str):
    entry.write_bytes(damaged)
    game = loaded_fresh()
    assert played(game) == reference, what
    # only the untouched entry may be read: every changed one is compiled again
    assert game.bytecode_from_cache == (damaged == original), what


def test_flipped_bits_never_change_or_break_the_game(cache):
    reference = played(recycle.load(SCHWIMMEN))
    (entry,) = cache.glob("*.code")
    original = entry.read_bytes()
    rng = random.Random(25)
    # every byte of the first 48 (header and tag), then 40 random bits anywhere (past the
    # header every flip meets the same check: the tag)
    flips = [(i, rng.randrange(8)) for i in range(48)]
    flips += [(rng.randrange(len(original)), rng.randrange(8)) for _ in range(40)]
    for i, bit in flips:
        damaged = bytearray(original)
        damaged[i] ^= 1 << bit
        check_same_game(entry, bytes(damaged), original, reference, f"bit {bit} of byte {i} flipped")
    assert entry.read_bytes() == original  # compiled again and stored anew, byte for byte


def test_truncated_extended_and_random_entries_are_compiled_again(cache):
    reference = played(recycle.load(SCHWIMMEN))
    (entry,) = cache.glob("*.code")
    original = entry.read_bytes()
    rng = random.Random(4)
    cases = {f"cut to {n} bytes": original[:n]
             for n in [0, 1, 4, 8, 39, 40, 41] + sorted(rng.sample(range(len(original)), 8))}
    cases["one byte more"] = original + b"\0"
    cases["doubled"] = original + original
    for n in (3, 100, len(original)):
        cases[f"{n} random bytes"] = rng.randbytes(n)
        cases[f"the header and {n} random bytes"] = codecache.HEADER + rng.randbytes(n)
    for what, damaged in cases.items():
        check_same_game(entry, damaged, original, reference, what)


def test_a_planted_entry_is_ignored(cache, monkeypatch):
    seen = []
    real_compile = codecache._compile
    monkeypatch.setattr(codecache, "_compile", lambda src, name: seen.append((src, name)) or real_compile(src, name))
    reference = played(recycle.load(SCHWIMMEN))
    ((source, filename),) = seen
    entry = cache / codecache.entry_name(source, filename)
    recycle.load(GAMES / "war.rcy")  # a genuine entry of another game, with this user's key
    (other,) = set(cache.glob("*.code")) - {entry}
    evil = marshal.dumps(compile("raise SystemExit('the planted entry ran')", filename, "exec"))
    digest = hashlib.sha256(b"guessed").digest()
    plants = {
        "bare marshalled code": evil,
        "a made-up tag": codecache.HEADER + bytes(32) + evil,
        "a tag under another key": codecache.HEADER + hmac.new(
            b"k" * 32, codecache.HEADER + digest + evil, "sha256").digest() + evil,
        "another game's genuine entry": other.read_bytes(),
    }
    for what, planted in plants.items():
        entry.write_bytes(planted)
        game = loaded_fresh()
        assert not game.bytecode_from_cache, what
        assert played(game) == reference, what


@pytest.mark.parametrize("mode", [0o1777, 0o777, 0o770])
def test_a_folder_others_can_write_is_refused_once(cache, capfd, mode):
    cache.mkdir()
    os.chmod(cache, mode)
    reference = played(recycle.load(SCHWIMMEN, engine="closures"))
    for _ in range(3):
        game = loaded_fresh()
        assert not game.bytecode_from_cache and played(game) == reference
    assert os.listdir(cache) == []  # nothing read, nothing written
    lines = capfd.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"recycle: not using the bytecode cache {cache}: it is writable by")


def test_a_folder_of_another_user_is_refused(cache, capfd, monkeypatch):
    cache.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(cache, 4242, -1)  # root here and in CI: really another owner
    else:
        monkeypatch.setattr(codecache.os, "geteuid", lambda: 4242)
    reference = played(recycle.load(SCHWIMMEN, engine="closures"))
    assert played(loaded_fresh()) == reference
    game = loaded_fresh()
    assert not game.bytecode_from_cache and played(game) == reference
    assert os.listdir(cache) == []
    (line,) = capfd.readouterr().err.splitlines()
    assert "not using the bytecode cache" in line and "owned by user" in line


def test_a_linked_folder_is_checked_where_it_leads(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "cache"
    link.symlink_to(real)
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(link))
    codecache.forget()
    recycle.load(SCHWIMMEN)
    assert loaded_fresh().bytecode_from_cache  # a safe folder behind a link is used
    os.chmod(real, 0o777)
    codecache._warned.clear()
    assert not loaded_fresh().bytecode_from_cache  # the folder it leads to is what counts
    codecache._warned.clear()
    codecache.forget()


def test_pruning_leaves_other_files_alone(cache, monkeypatch):
    cache.mkdir(mode=0o700)
    mine = {cache / f"notes-{i}.code": f"my file {i}".encode() for i in range(150)}
    # named as recycle names its entries, but not written by recycle
    mine.update({cache / f"{i:040x}.code": b"my own bytes" for i in range(150)})
    for path, data in mine.items():
        path.write_bytes(data)
        os.utime(path, (1, 1))  # older than any entry
    recycle.load(SCHWIMMEN)
    monkeypatch.setattr(codecache, "MAX_ENTRIES", 2)
    for name in "abcd":
        codecache.compiled(f"{name} = 1\n", f"<{name}>")
    for path, data in mine.items():
        assert path.read_bytes() == data
    ours = [p for p in cache.glob("*.code") if p not in mine]
    assert len(ours) == 2
    assert {code_of(p.read_bytes()).co_filename for p in ours} == {"<c>", "<d>"}


def test_a_fifo_named_like_an_entry_does_not_block(cache):
    reference = played(recycle.load(SCHWIMMEN))
    (entry,) = cache.glob("*.code")
    entry.unlink()
    os.mkfifo(entry)
    script = ("import recycle, sys; from tests.lang.test_codecache import SCHWIMMEN, played; "
              "g = recycle.load(SCHWIMMEN); sys.stdout.write(played(g)); "
              "sys.exit(1 if g.bytecode_from_cache else 0)")
    env = dict(os.environ, RECYCLE_CACHE_DIR=str(cache))
    try:  # the timeout is only a safety net: a load must not wait at all
        run = subprocess.run([sys.executable, "-c", script], cwd=str(GAMES.parent), env=env,
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the load waited on a FIFO named like an entry")
    assert run.returncode == 0, run.stderr
    assert run.stdout == reference
    assert stat.S_ISFIFO(os.lstat(entry).st_mode)  # left alone


def test_a_link_named_like_an_entry_is_not_followed(cache, tmp_path):
    reference = played(recycle.load(SCHWIMMEN))
    (entry,) = cache.glob("*.code")
    outside = tmp_path / "elsewhere.code"
    entry.rename(outside)  # a genuine entry, but out of the folder
    os.utime(outside, (1, 1))
    data = outside.read_bytes()
    entry.symlink_to(outside)
    game = loaded_fresh()
    assert not game.bytecode_from_cache and played(game) == reference
    assert entry.is_symlink() and outside.read_bytes() == data
    assert outside.stat().st_mtime == 1  # not even marked as used


@pytest.mark.parametrize("unfit", ["readable", "group", "owner", "short", "link"])
def test_an_unfit_key_is_not_used(cache, tmp_path, monkeypatch, unfit):
    seen = []
    real_compile = codecache._compile
    monkeypatch.setattr(codecache, "_compile", lambda src, name: seen.append((src, name)) or real_compile(src, name))
    reference = played(recycle.load(SCHWIMMEN))
    ((source, filename),) = seen
    key_file = cache / codecache.KEY_NAME
    assert stat.S_IMODE(os.lstat(key_file).st_mode) == 0o600
    known = b"a key others may have read.....!"  # 32 bytes
    key_file.unlink()
    if unfit == "link":
        (tmp_path / "key").write_bytes(known)
        os.chmod(tmp_path / "key", 0o600)
        key_file.symlink_to(tmp_path / "key")
    else:
        key_file.write_bytes(known[:20] if unfit == "short" else known)
        os.chmod(key_file, {"readable": 0o644, "group": 0o640}.get(unfit, 0o600))
        if unfit == "owner":
            if os.geteuid() == 0:
                os.chown(key_file, 4242, -1)
            else:
                monkeypatch.setattr(codecache.os, "geteuid", lambda: 4242)
    evil = marshal.dumps(compile("raise SystemExit('the planted entry ran')", filename, "exec"))
    digest = codecache._key_digest(source, filename)
    tag = hmac.new(known, codecache.HEADER + digest + evil, "sha256").digest()
    (cache / codecache.entry_name(source, filename)).write_bytes(codecache.HEADER + tag + evil)
    game = loaded_fresh()
    assert not game.bytecode_from_cache and played(game) == reference
    if unfit != "owner" or os.geteuid() == 0:  # replaced by a fit key of this user's
        st = os.lstat(key_file)
        assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        assert st.st_uid == os.geteuid() and key_file.read_bytes() != known
        assert loaded_fresh().bytecode_from_cache  # the new key's entry is read


def test_the_cache_entry_fuzzer_finds_nothing(capsys):
    from recycle.study import cachefuzz

    before = os.environ.get("RECYCLE_CACHE_DIR")
    assert cachefuzz.run(30, seed=1) == 0  # tools/fuzz.py --cache-entries runs it longer
    assert os.environ.get("RECYCLE_CACHE_DIR") == before
    out = capsys.readouterr().out
    assert "recompiled 30" in out and "no failures" in out
