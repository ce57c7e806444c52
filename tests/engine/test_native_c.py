"""The native engine's C (recycle/native/c/): what reaches it, what builds it, what plays.

* Outside text (a game's names, its forms quoted in comments, its file name) reaches the C only
  as identifiers of letters, digits and ``_`` (C's keywords renamed) or inside comments that no
  text can end: a hostile name builds and plays the game's games.
* The library tcc builds and the one gcc -O2 builds play the same games, bit for bit (draws,
  decisions, scores, every card's place), so swapping the faster one in changes nothing.
* A damaged library kept in the cache is built again (one line on stderr), the same games.
* Without a C compiler the reference interpreter plays, and one line on stderr says so.
* ``recycle compile`` writes the C and the command that builds it; built by hand, it plays.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

import recycle
from recycle.engine.game import rollout_seed
from recycle.native import available
from recycle.native.c import build
from recycle.native.c.cmodule import module_c
from recycle.native.c.ctext import TranslateError, comment, safe
from recycle.native.c.library import ModuleLibrary
from recycle.native.engine import native_source

from ..conftest import GAMES, tiny

ROOT = Path(__file__).resolve().parents[2]
TCC, GCC = shutil.which("tcc"), shutil.which("gcc")
needs_tcc_and_gcc = pytest.mark.skipif(not (TCC and GCC), reason="needs both tcc and gcc")
SEEDS = [rollout_seed(3, i) for i in range(300)]


# -- outside text ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['end */ int x = system("id"); /*', "*/*/", "a/*b", "??/ trigraph", "new\nline", "tab\tand \x00 nul", "é\u2028"],
)
def test_no_text_ends_or_disturbs_a_comment(text):
    c = comment(text)
    assert c.startswith("/* ") and c.endswith(" */")
    inner = c[3:-3]
    assert "*/" not in inner and "/*" not in inner and "??" not in inner
    assert all(" " <= ch <= "~" for ch in inner)  # printable ASCII only: no new line, no NUL


def test_names_are_identifiers_and_c_keywords_are_renamed():
    assert safe("LOC_iloc_HAND") == "LOC_iloc_HAND"
    assert safe("int") == "py_int" and safe("while") == "py_while" and safe("rc_games") == "py_rc_games"
    for bad in ("a-b", "é", "x y", "1x", "a;b"):
        with pytest.raises(TranslateError):
            safe(bad)


HOSTILE = """(do ((shuffle (game iloc STOCK))))
 (stage player (end (== (size (game iloc STOCK)) 0))
  (choice (
   ;; a comment */ system("id"); /*
   (move (top (game iloc STOCK)) (top ((current player) iloc int)))
   (move (top (game iloc STOCK)) (top ((current player) iloc while))))))"""


def hostile_game():
    return tiny(HOSTILE, scoring="(scoring max (size ((current player) iloc int)))")


def test_a_game_with_hostile_names_builds_and_plays_as_the_reference_interpreter():
    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    game = hostile_game()
    c = module_c(native_source(game), 'x */ system("id"); /* .rcy')
    assert "LOC_iloc_int" in c and "LOC_iloc_while" in c  # names kept (prefixed: no keyword)
    assert c.count('system("id")') == 1  # the file name, in the title comment (the game's own comments are dropped)
    for line in c.splitlines():
        # every comment closes where it opened: nothing after its end but code of ours
        if "system" in line:
            assert line.strip().startswith("/*") and line.strip().endswith("*/") and line.count("*/") == 1
    fast, _ = build.compilers()
    lib = ModuleLibrary(native_source(game), _namespace(game), tiers=(fast, None))
    assert lib.tier == fast[0]
    from recycle.native import rollout_records

    seeds = SEEDS[:40]
    records = rollout_records(game, seeds, 10_000)
    want = []
    for sd in seeds:
        r = game.random_rollout(sd, 10_000)
        want.append((r.scores, r.decisions, r.options_total, r.team_of[:]))
    assert records == want


def _namespace(game) -> dict:
    import types

    mod = types.ModuleType("recycle_native_test_" + str(abs(hash(native_source(game)))))
    exec(compile(native_source(game), "<test>", "exec"), mod.__dict__)
    return mod.__dict__


# -- tcc and gcc: the same games -------------------------------------------------------------


def transcript(game, tier) -> list:
    """Every rollout's counters, scores and card places, played by the library ``tier`` builds."""
    from recycle.native import native_game

    ng = native_game(game)
    source = native_source(game)
    lib = ModuleLibrary(source, _namespace(game), tiers=(tier, None))
    assert lib.tier == tier[0]
    original = ng.module.games
    try:
        ng.module.games = lib
        scores, counts, places = ng.rollouts(SEEDS, 100_000, game.max_work, places=True)
    finally:
        ng.module.games = original
    return [scores.tolist(), counts.tolist(), places.tolist()]


@needs_tcc_and_gcc
@pytest.mark.parametrize("path", [GAMES / "schwimmen.rcy", GAMES / "go-fish.rcy"], ids=lambda p: p.stem)
def test_tcc_and_gcc_libraries_play_the_same_games(path):
    game = recycle.load(path)
    tcc = transcript(game, ("tcc", [TCC, *build.TCC_FLAGS]))
    gcc = transcript(game, ("gcc-O2", [GCC, *build.GCC_FLAGS]))
    assert tcc == gcc
    assert sum(1 for row in tcc[1] if row[0] == 0) > 250  # games played to their end, compared


# -- the cache and the compilers, in fresh processes -------------------------------------------


def run(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("RECYCLE_")}
    environ.update(PYTHONPATH=str(ROOT), RECYCLE_CACHE_DIR=str(cache), RECYCLE_NATIVE_CC="tcc")
    environ.update(env)
    return subprocess.run(
        [sys.executable, "-m", "recycle", *args], env=environ, capture_output=True, text=True, timeout=600, check=False
    )


SIMULATE = ["simulate", str(GAMES / "war.rcy"), "-n", "200", "--seed", "4", "--engine", "native", "--json"]


@pytest.mark.skipif(not TCC, reason="needs tcc")
def test_a_damaged_library_in_the_cache_is_built_again(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    clean = run(SIMULATE, cache)
    assert clean.returncode == 0, clean.stderr
    (entry,) = (cache / "native").glob("c*.entry")
    raw = entry.read_bytes()
    middle = len(raw) // 2
    entry.write_bytes(raw[:middle] + b"\xcc" * 64 + raw[middle + 64 :])  # int3 over its machine code
    again = run(SIMULATE, cache)
    assert again.returncode == 0, again.stderr
    assert (
        f"recycle: the native cache entry {entry} was damaged or not written by this user: compiling it again"
        in again.stderr.splitlines()
    )
    strip = ("seconds", "rollouts_per_second")
    import json

    a, b = json.loads(clean.stdout), json.loads(again.stdout)
    assert {k: v for k, v in a.items() if k not in strip} == {k: v for k, v in b.items() if k not in strip}
    assert "building war into machine code" in again.stderr  # built again, not loaded


def test_without_a_c_compiler_the_reference_interpreter_plays_and_says_so_once(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    done = run(SIMULATE, cache, RECYCLE_NATIVE_CC="none")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "compiler" in line]
    assert lines == [
        "recycle: the native engine needs a C compiler (tcc or gcc: setup.sh installs them); "
        "the reference interpreter plays"
    ]
    assert "building" not in done.stderr
    auto = run([*SIMULATE[:-3], "--json"], cache, RECYCLE_NATIVE_CC="none")
    assert [line for line in auto.stderr.splitlines() if "compiler" in line] == lines


@pytest.mark.skipif(not TCC, reason="needs tcc")
def test_compile_writes_the_c_and_the_command_that_builds_it(tmp_path):
    out = tmp_path / "war.c"
    done = run(["compile", str(GAMES / "war.rcy"), "-o", str(out)], tmp_path / "cache", RECYCLE_NATIVE_CC="tcc")
    assert done.returncode == 0, done.stderr
    (command,) = [line.split(": ", 1)[1] for line in done.stderr.splitlines() if line.startswith("build it with:")]
    assert command.startswith("tcc ") and str(out) in command
    built = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120, check=False)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "war.so").stat().st_size > 0
    text = out.read_text()
    assert "void rc_games(" in text and "/* line " in text


# -- a cached load: no writer, no run of the module ------------------------------------------


def test_the_loader_reads_a_module_s_constants_without_running_it():
    from recycle.native.kept import constants

    source = (
        "import os\nos.system('touch pwned')\nMEMO_SITES = 3  # a comment\nDRY_LEVELS = 1\n"
        "STRINGS = {'': 0, 'a  # b': 1}\nNPLAYERS = 2  # players\n"
    )
    assert constants(source) == {"MEMO_SITES": 3, "DRY_LEVELS": 1, "STRINGS": {"": 0, "a  # b": 1}, "NPLAYERS": 2}


def test_a_game_loaded_again_takes_its_module_from_the_cache_not_the_writer(tmp_path, monkeypatch):
    from recycle.native import module

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(cache))
    monkeypatch.delenv("RECYCLE_NO_CACHE", raising=False)
    text = (GAMES / "war.rcy").read_text()
    written = native_source(recycle.loads(text, "war.rcy"))

    def no_writer(*_):
        raise AssertionError("the writer ran for a game whose module is kept")

    monkeypatch.setattr(module, "write", no_writer)
    assert native_source(recycle.loads(text, "war.rcy")) == written
    # another text (or file name) is another module: written afresh
    with pytest.raises(AssertionError, match="the writer ran"):
        native_source(recycle.loads(text.replace("war", "war2", 1), "war.rcy"))
    with pytest.raises(AssertionError, match="the writer ran"):
        native_source(recycle.loads(text, "other.rcy"))


def test_a_module_the_translator_refuses_is_played_by_the_reference_interpreter(tmp_path, monkeypatch):
    """A translation error is a bug of the writer or the translator, never a traceback: the game
    is said not native (with the reason) and the reference interpreter plays it."""
    if not available():
        pytest.skip("the native engine needs NumPy and a C compiler")
    from recycle.native.c import library
    from recycle.native import why_not_native
    from recycle.study.stats import simulate

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("RECYCLE_CACHE_DIR", str(cache))

    def refused(*_):
        raise TranslateError("games: a construct outside the subset (line 1)")

    monkeypatch.setattr(library, "c_source", refused)
    game = tiny(HOSTILE.replace("iloc while", "iloc other"), scoring="(scoring max (size ((current player) iloc int)))")
    why = why_not_native(game)
    assert why == "the native engine does not write this game's C (games: a construct outside the subset (line 1))"
    stats = simulate(game, 30, seed=2, engine="native")
    assert stats.engine == "reference" and stats.played == 30


# -- copies as memcpy ------------------------------------------------------------------------


COPIES = """
from recycle.native.runtime import copy_cells, copy_cells_at, same_cells


def rows(dst, src):
    copy_cells(dst, src, src.shape[0] * src.shape[1])


def mixed(dst, src):
    copy_cells(dst, src, 3)


def same(a, b):
    return same_cells(a, 1, b, 2, 3)


def at(a, b):
    copy_cells_at(a, 1, b, 2, 3)
"""


def _copy_function(name: str, sig: tuple) -> str:
    import types

    from recycle.native.c.translate import Program, Source

    mod = types.ModuleType("recycle_native_test_copies")
    exec(compile(COPIES, "<test>", "exec"), mod.__dict__)
    prog = Program({mod.__name__: Source(COPIES, mod.__dict__)})
    return prog.instance(mod.__name__, name, sig).emit()


def test_copy_cells_is_one_memcpy_and_refuses_two_dtypes():
    from recycle.native.c.ctyping import Arr

    c = _copy_function("rows", (Arr("int64", 2), Arr("int64", 2)))
    assert "memcpy((dst).d, (src).d, (size_t)((src.s0 * src.s1)) * sizeof(*(src).d));" in c
    assert "for (" not in c
    with pytest.raises(TranslateError, match="copy_cells of a int32 array into a int64 one"):
        _copy_function("mixed", (Arr("int64", 1), Arr("int32", 1)))
    # in Python (the runtime's own meaning): the first cells, in C order
    np = pytest.importorskip("numpy")
    from recycle.native.runtime import copy_cells

    dst = np.zeros((2, 3), np.int64)
    copy_cells(dst, np.arange(6, dtype=np.int64).reshape(2, 3), 4)
    assert dst.tolist() == [[0, 1, 2], [3, 0, 0]]


def test_same_cells_is_one_memcmp():
    from recycle.native.c.ctyping import Arr

    c = _copy_function("same", (Arr("int64", 1), Arr("int64", 1)))
    assert "return (memcmp((a).d + (1LL), (b).d + (2LL), (size_t)(3LL) * sizeof(*(a).d)) == 0);" in c
    np = pytest.importorskip("numpy")
    from recycle.native.runtime import same_cells

    a, b = np.array([9, 1, 2, 3], np.int64), np.array([0, 0, 1, 2, 3], np.int64)
    assert same_cells(a, 1, b, 2, 3) and not same_cells(a, 0, b, 2, 3)
    # copy_cells_at: cells at offsets, one memcpy
    c = _copy_function("at", (Arr("int64", 1), Arr("int64", 1)))
    assert "memcpy((a).d + (1LL), (b).d + (2LL), (size_t)(3LL) * sizeof(*(a).d));" in c
    from recycle.native.runtime import copy_cells_at

    a = np.zeros(5, np.int64)
    copy_cells_at(a, 1, np.arange(6, dtype=np.int64), 2, 3)
    assert a.tolist() == [0, 2, 3, 4, 0]


@pytest.mark.skipif(not TCC, reason="needs tcc")
def test_the_best_build_starts_first_and_the_fast_library_never_replaces_it(tmp_path):
    """gcc -O2's build is the longer one and the games wait for it: it starts before tcc's (the
    fast build here waits for the best one's marker, and fails without it); a fast library
    finished after the best one is not loaded over it."""
    marker = tmp_path / "best-started"
    best_cc, fast_cc = tmp_path / "best-cc", tmp_path / "fast-cc"
    best_cc.write_text(f'#!/bin/sh\ntouch "{marker}"\nexec "{TCC}" "$@"\n')
    fast_cc.write_text(
        f'#!/bin/sh\nfor i in $(seq 100); do [ -e "{marker}" ] && break; sleep 0.1; done\n'
        f'[ -e "{marker}" ] || exit 1\nsleep 0.5\nexec "{TCC}" "$@"\n'
    )
    for f in (best_cc, fast_cc):
        f.chmod(0o700)
    game = recycle.load(GAMES / "war.rcy")
    fast, best = ("slow-fast", [str(fast_cc), *build.TCC_FLAGS]), ("quick-best", [str(best_cc), *build.TCC_FLAGS])
    lib = ModuleLibrary(native_source(game), _namespace(game), tiers=(fast, best))
    assert lib.ready.wait(60)
    assert lib.tier == "quick-best"
