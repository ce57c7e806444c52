"""Parsing: the AST carries positions; syntax errors name file:line:column and what was expected."""

import pytest

import recycle
from recycle.lang.syntax import INT, SYMBOL, VAR, Atom, SList, parse_text


def test_atoms_and_positions():
    sf = parse_text("(game\n  (declare 5 'NUMP) (range 1..8) (== a b) ;; comment\n)", "f.rcy")
    game = sf.forms[0]
    assert isinstance(game, SList) and game.head == "game"
    declare = game.items[1]
    assert declare.span.line == 2 and declare.span.column == 3
    assert declare.items[1] == Atom(INT, 5, declare.items[1].span)
    assert declare.items[2].kind == VAR and declare.items[2].value == "NUMP"
    rng = game.items[2]
    assert [a.kind for a in rng.items] == [SYMBOL, INT, "dotdot", INT]
    assert game.items[3].items[0].kind == "op"


def test_bom_and_stray_paren_are_tolerated():
    sf = parse_text("\ufeff(game) )", "f.rcy")
    assert len(sf.forms) == 1
    assert "stray ')'" in sf.warnings[0] and "f.rcy:1:" in sf.warnings[0]


def test_single_semicolon_comment_to_end_of_file():
    sf = parse_text("(game (a)) ; trailing comment without newline", "f.rcy")
    assert sf.forms[0].head == "game"


@pytest.mark.parametrize("text, where, words", [
    ("(game (setup)", "f.rcy:1:1", "never closed"),
    ("(game (setup ))\n  (x #)", "f.rcy:2:6", "unexpected character '#'"),
    ("(game (a 'b)) ", "f.rcy:1:10", "unexpected character"),
    ("", "f.rcy:1:1", "no game"),
])
def test_syntax_errors_name_the_place(text, where, words):
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        parse_text(text, "f.rcy")
    msg = info.value.format()
    assert msg.startswith(where), msg
    assert words in msg


def test_deep_nesting_is_a_syntax_error_not_a_crash():
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        parse_text("(" * 5000 + ")" * 5000, "deep.rcy")
    assert "nested more than" in str(info.value)


def test_non_utf8_is_reported(tmp_path):
    p = tmp_path / "bad.rcy"
    p.write_bytes(b"(game \xff)")
    with pytest.raises(recycle.RecycleSyntaxError) as info:
        recycle.load(p)
    assert "not UTF-8" in str(info.value) and ":1:7" in str(info.value)
