"""Hostile game files get a positioned message, never a Python traceback: values of the
wrong kind used as names, literals and decks too large to build, views too large to hold,
sums beyond 64 bits, line endings other than ``\\n``, and file names that would be code in
the generated module.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import recycle
from recycle.lang.python.pytext import embed
from recycle.lang.syntax.reader import parse_text

HEAD = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
"""
TAIL = "\n (scoring max 0))"


def game(body: str) -> str:
    return HEAD + body + TAIL


def outcome(text: str, fast: bool = True):
    """('ok', scores) or (error class, first line of the message, the form) for one game."""
    try:
        g = recycle.loads(text, "hostile.rcy", fast=fast)
        return ("ok", g.play(seed=0).scores)
    except recycle.RecycleError as exc:
        return (type(exc).__name__, exc.format().splitlines()[0], exc.form)


# -- (cardatt KEY (actual 'C)) -------------------------------------------------------------------


def test_cardatt_of_an_actual_bound_card():
    text = game("(do ((all (game iloc STOCK) 'C ((== (cardatt RANK (actual 'C)) B) (inc (game sto X))))))")
    for fast in (True, False):
        r = recycle.loads(text, "c.rcy", fast=fast).play(seed=0)
        assert r.state.sto("game", "X") == 2  # B of suits X and Y


# -- values of the wrong kind used as names ----------------------------------------------------

NAMES = {
    # known from the syntax: a compile error (so `recycle check` reports it)
    "a declared name list as a location name": (
        "(game (declare (A, B) 'L) (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))"
        "\n (do ((move (top (game iloc STOCK)) (top (game vloc 'L))))) (scoring max 0))",
        "RecycleCompileError",
        "'L is a collection, not a name",
    ),
    "a bound card as a location name": (
        game("(do ((all (game iloc STOCK) 'C (move (top (game iloc STOCK)) (top (game vloc 'C))))))"),
        "RecycleCompileError",
        "'C holds a card, not a name",
    ),
    "a group list as a storage name": (
        game("(do ((let (partition RANK (game iloc STOCK)) 'G (inc (game sto 'G)))))"),
        "RecycleCompileError",
        "'G holds a list of groups, not a name",
    ),
    "a filter as a point-map name": (
        game("(do ((let (filter (game iloc STOCK) 'C (== 1 1)) 'F (set (game points 'F) (((RANK : A) 1))))))"),
        "RecycleCompileError",
        "'F holds a collection, not a name",
    ),
    "a filter in a string storage": (
        game("(do ((let (filter (game iloc STOCK) 'C (== 1 1)) 'F (set (game str S) 'F))))"),
        "RecycleCompileError",
        "'F holds a collection, not a string",
    ),
    "a range as a location name": (
        game("(do ((let (range 1..3) 'R (move (top (game iloc STOCK)) (top (game vloc 'R))))))"),
        "RecycleCompileError",
        "'R holds a collection, not a name",
    ),
    "a player as a cardatt key": (
        game("(do ((all player 'P (set (game str S) (cardatt 'P (top (game iloc STOCK)))))))"),
        "RecycleCompileError",
        "'P holds a player, not a name",
    ),
    # known only when it runs: a positioned runtime error
    "a group list through a variable of unknown kind": (
        game("(do ((let (top (partition RANK (game iloc STOCK))) 'G (let 'G 'H (inc (game sto 'H))))))"),
        "RecycleRuntimeError",
        "'H holds a collection, not a name",
    ),
    "a name list as a cardatt key": (
        game("(do ((all ((A, B), (C, D)) 'N (set (game str S) (cardatt 'N (top (game iloc STOCK)))))))"),
        None,
        None,
    ),
    "a card through a let, as a storage name": (
        game("(do ((let (top (game iloc STOCK)) 'T (inc (game sto 'T)))))"),
        "RecycleRuntimeError",
        "'T holds a card, not a name",
    ),
    "a list in a string storage, through two lets": (
        game("(do ((let (game iloc STOCK) 'L (let (union 'L) 'M (set (game str S) 'M)))))"),
        "RecycleCompileError",
        "'M holds a collection, not a string",
    ),
}


@pytest.mark.parametrize("name", list(NAMES))
def test_a_value_of_the_wrong_kind_as_a_name_is_reported(name):
    text, kind, words = NAMES[name]
    got = [outcome(text, fast) for fast in (True, False)]
    assert got[0] == got[1]
    if kind is None:  # whatever the reading, never a Python exception
        return
    assert got[0][0] == kind, got[0]
    assert got[0][1].startswith("hostile.rcy:") and words in got[0][1], got[0]


def test_a_string_storage_never_holds_a_list_and_no_location_is_named_after_a_card():
    g = recycle.loads(
        game("(do ((let (top (game iloc STOCK)) 'T (move (top (game iloc STOCK)) (top (game vloc 'T))))))"), "h.rcy"
    )
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        g.play(seed=0)
    assert "not a name" in str(info.value)
    assert not any("Card(" in str(name) or "range(" in str(name) for _, name in g.layout.loc_base)


def test_computed_names_are_bounded():
    g = recycle.loads(game("(do ((all (range 1..100000) 'I (inc (game sto 'I)))))"), "names.rcy")
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        g.play(seed=0)
    assert "5000 sto names" in str(info.value) and str(info.value).startswith("names.rcy:")


def test_a_computed_cardatt_key_makes_no_column_per_key():
    g = recycle.loads(
        game(
            "(do ((all (range 1..5000) 'I (set (game str S) (cardatt 'I (top (game iloc STOCK)))))"
            " (set (game str T) (cardatt (game str K) (top (game iloc STOCK))))))"
        ),
        "keys.rcy",
    )
    before = len(g.card_table._columns)
    assert before < 10  # (the game's literal keys; none of the 5,000 computed ones)
    for seed in range(3):  # every computed key is looked up card by card while the game plays
        g.random_rollout(seed)
    assert len(g.card_table._columns) == before


# -- literals, decks and views too large --------------------------------------------------------


def test_an_integer_literal_of_5000_digits_is_a_syntax_error():
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.loads(game("(do ((set (game sto X) " + "9" * 5000 + ")))"), "lit.rcy")
    msg = str(info.value)
    assert msg.startswith("lit.rcy:2:24:") and "beyond 64 bits" in msg
    assert len(msg) < 1000


def nested_tree(depth: int) -> str:
    """An attribute tree of a few hundred bytes whose cards square at every level."""
    if depth == 0:
        return "(K0 (P, Q))"
    sub = nested_tree(depth - 1)
    return f"(K{depth} (V {sub} {sub.replace('(K', '(L')}))"


def test_a_small_deeply_nested_deck_fails_at_once():
    tree = nested_tree(6)
    assert len(tree) < 8000
    text = (
        "(game (setup (create players 2) (create deck (game iloc STOCK) (deck " + tree + ")))"
        "\n (do ((turn pass))) (scoring max 0))"
    )
    with pytest.raises(recycle.RecycleCompileError) as info:
        recycle.loads(text, "deck.rcy")
    assert "cards" in str(info.value) and str(info.value).startswith("deck.rcy:")


def test_wide_products_inside_a_branch_fail_at_once():
    inner = " ".join(f"(A{i} (P, Q))" for i in range(40))  # 2^40 cards inside one value's branch
    text = (
        "(game (setup (create players 2) (create deck (game iloc STOCK) (deck (K (V " + inner + ")))))"
        "\n (do ((turn pass))) (scoring max 0))"
    )
    with pytest.raises(recycle.RecycleCompileError) as info:
        recycle.loads(text, "deck.rcy")
    assert "more than 200000 cards" in str(info.value)


THOUSAND = (
    "(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B, C, D, E, F, G, H, I, "
    "J)) (SUIT (A, B, C, D, E, F, G, H, I, J)) (COLOR (A, B, C, D, E, F, G, H, I, J)))))\n"
)


@pytest.mark.parametrize("view", ["union", "intersect", "disjunction", "partition RANK"])
def test_a_view_of_100000_copies_of_a_location_is_stopped(view):
    """A view of 100,000 copies of a 1,000-card location (10^8 cards read): a union or a
    partition would hold them all (a runtime error at once); an intersect or a disjunction
    holds few but reads them all (the work budget stops it). It was a MemoryError."""
    text = THOUSAND + f"(do ((set (game sto X) (size ({view} (all (range 1..100000) 'I (game iloc STOCK)))))))" + TAIL
    got = [outcome(text, fast) for fast in (True, False)]
    assert got[0] == got[1]
    want = "StepLimitExceeded" if view in ("intersect", "disjunction") else "RecycleRuntimeError"
    assert got[0][0] == want, got[0]
    assert got[0][1].startswith("hostile.rcy:2:") and got[0][2] == view.split()[0]


# -- 64 bits --------------------------------------------------------------------------------------

BIG = 9_000_000_000_000_000_000


def test_sum_beyond_64_bits_is_an_overflow():
    text = game(
        f"(do ((set (game points P) (((RANK : A) {BIG}))) "
        "(set (game sto X) (sum (game iloc STOCK) using (game points P)))))"
    )
    got = outcome(text)
    assert got[0] == "RecycleRuntimeError" and "integer overflow" in got[1] and got[2] == "sum"
    assert outcome(text, fast=False) == got


def test_score_beyond_64_bits_is_an_overflow():
    text = game(
        f"(do ((set (game points P) (((RANK : C) {BIG}) ((SUIT : Y) {BIG}))) "
        "(set (game sto X) (score (top (game iloc STOCK)) using (game points P)))))"
    )
    got = outcome(text)
    assert got[0] == "RecycleRuntimeError" and "integer overflow" in got[1] and got[2] == "score"


def test_the_scoring_of_two_big_scores_does_not_wrap():
    text = (
        HEAD + f"(do ((set (game points P) (((RANK : A) {BIG}))))) (do ((turn pass)))"
        "\n (scoring max (sum (game iloc STOCK) using (game points P))))"
    )
    got = outcome(text)
    assert got[0] == "RecycleRuntimeError" and "overflow" in got[1]


# -- line endings ---------------------------------------------------------------------------------

GAME_LINES = [
    "; a comment on the first line",
    "(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (A, B)))))",
    " (do ((move (top (game vloc EMPTY)) (top (game vloc Y)))))",
    " (scoring max 0))",
]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_every_line_ending_reads_as_lines(newline):
    text = newline.join(GAME_LINES)
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        recycle.loads(text, "eol.rcy").play(seed=0)
    lines = info.value.format().splitlines()
    assert lines[0].startswith("eol.rcy:3:13:"), lines
    assert lines[2].strip() == GAME_LINES[2].strip()  # the caret quotes that very line
    assert lines[3].index("^") == lines[2].index("(top (game vloc EMPTY))")


@pytest.mark.parametrize("sep", ["\f", "\v", "\x1c", "\x85", "\u2028"], ids=repr)
def test_a_line_separator_counts_as_a_line_break_for_the_caret(sep):
    text = GAME_LINES[1] + sep + "\n" + GAME_LINES[2] + "\n" + GAME_LINES[3]
    with pytest.raises(recycle.RecycleRuntimeError) as info:
        recycle.loads(text, "ff.rcy").play(seed=0)
    lines = info.value.format().splitlines()
    assert lines[0].startswith("ff.rcy:3:13:"), lines
    assert lines[2].strip() == GAME_LINES[2].strip()


def test_a_syntax_error_after_a_form_feed_quotes_its_line():
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        parse_text("(game\f(a)\n  (b #))", "ff.rcy")
    lines = info.value.format().splitlines()
    assert lines[0].startswith("ff.rcy:3:6:"), lines
    assert lines[1].strip() == "(b #))" and lines[2].index("^") == lines[1].index("#")


# -- outside text in the generated module (recycle/lang/python/pytext.py) -------------------------

ROOT = Path(__file__).resolve().parents[2]
SCHWIMMEN = ROOT / "games" / "schwimmen.rcy"

HOSTILE_NAMES = [
    'k""";open("pwned","w");""".rcy',  # ends the module's docstring, then code
    "k''';open('pwned','w');'''.rcy",
    "back\\slash\\.rcy",
    'trailing quote".rcy',
    "Simon'sCat4.rcy",
    "new\nline;open('pwned','w').rcy",
    "cr\rline.rcy",
    "form\ffeed.rcy",
    "vt\vtab.rcy",
    "sep\u2028line.rcy",
    "para\u2029sep.rcy",
    "next\x85line.rcy",
    "nul\0byte.rcy",
    "bad\udcffname.rcy",  # a file name that is not UTF-8, as Python decodes it
    "x -*- coding: utf-7 -*-.rcy",
    "#!/bin/sh\n# coding: latin-1\n.rcy",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_a_hostile_file_name_plays_as_any_other(name, tmp_path, monkeypatch):
    """A game loaded under a hostile name plays as under any other, and runs nothing (the
    native module's docstring: tests/engine/test_native.py)."""
    monkeypatch.chdir(tmp_path)  # where a name that ran would leave its file
    text = SCHWIMMEN.read_text()
    plain = recycle.loads(text, "plain.rcy")
    g = recycle.loads(text, name)
    assert g.engine == "reference", g.warnings
    assert g.play(seed=4).scores == plain.play(seed=4).scores
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "text", HOSTILE_NAMES + ["a\\", "\\x", '"', '""', "\\N{BULLET}", "\U0001f0a1 \x00\x7f"], ids=repr
)
def test_embed_cannot_be_broken_out_of(text):
    """``embed``: a literal reads back as the value; text is one line that ends neither a
    comment nor a docstring, and a docstring reads it back exactly."""
    assert ast.literal_eval(embed(text)) == text
    words = embed(text, "text")
    assert words.isprintable() and '"' not in words
    module = ast.parse(f'"""{words}"""\n# {words}\nx = 1\n')
    assert ast.get_docstring(module, clean=False) == text
    assert [type(n) for n in module.body] == [ast.Expr, ast.Assign]
    compile("x = 1", f"<recycle generated: {words}>", "exec")  # a compile name too


@pytest.mark.slow  # (8 s: the fast suite stays under 5 minutes on 2 cores)
def test_a_hostile_file_name_on_disk_runs_no_code(tmp_path):
    """The name of a valid game file is never run: checking, running, compiling, describing
    and replaying it leave no file behind; a name that is not UTF-8 plays like any other."""
    text = SCHWIMMEN.read_bytes()
    names = [b'k""";open("pwned","w");""".rcy', b"bad\xffname.rcy"]
    for name in names:
        (tmp_path / os.fsdecode(name)).write_bytes(text)
    env = dict(os.environ, RECYCLE_CACHE_DIR=str(tmp_path / "cache"))
    run = [sys.executable, "-m", "recycle"]

    def commands(k: int, name: bytes) -> list:
        """Each name's commands in order (its record, then its replay), with outputs of its own."""
        out = []
        for args in (
            ["check"],
            ["run"],
            ["simulate", "-n", "3"],
            ["tree"],
            ["compile", "-o", b"out%d.py" % k],
            ["run", "--record", b"rec%d.json" % k],
            ["replay", b"rec%d.json" % k],
        ):
            cmd = run + args[:1] + ([name] if args[0] != "replay" else []) + args[1:]
            out.append((cmd, subprocess.run(cmd, capture_output=True, cwd=tmp_path, env=env)))
        return out

    with ThreadPoolExecutor(len(names)) as pool:  # the two names' commands side by side
        done = list(pool.map(commands, range(len(names)), names))
    for cmd, r in (pair for runs in done for pair in runs):
        assert r.returncode == 0 and b"Traceback" not in r.stderr, (cmd, r.stderr[-800:])
    assert not (tmp_path / "pwned").exists()
    for name in names:
        g = recycle.load(tmp_path / os.fsdecode(name))
        assert g.engine == "reference" and g.play(seed=1).scores
