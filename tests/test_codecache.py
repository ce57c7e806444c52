"""The on-disk bytecode cache of generated game modules (recycle/lang/codecache.py)."""

import marshal
import os

import pytest

import recycle
from recycle.engine.transcript import transcript
from recycle.lang import codecache

from .conftest import GAMES

SCHWIMMEN = GAMES / "schwimmen.rcy"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(folder))
    monkeypatch.delenv("RECYCLE_NO_CACHE", raising=False)
    codecache.forget()
    yield folder
    codecache.forget()


def played(game, seed=3):
    r = game.play(seed=seed, record=True, describe=True)
    return "\n".join(transcript(game, r))


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
    assert marshal.loads(entry.read_bytes()).co_filename.startswith("<recycle generated:")


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
