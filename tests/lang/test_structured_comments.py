"""Games in their own words: ``;@`` structured comments name options and hide or label
storages (recycle/lang/syntax/notes.py); notes not understood are warnings with their position.
How the play screen shows them is tests/cli/test_play_screen.py's."""

from typer.testing import CliRunner

import recycle
from recycle.cli.main import app
from recycle.engine.public import public_options

from ..helpers import LAY


def test_notes_not_understood_are_warnings_with_their_position(tmp_path):
    bad = LAY.replace(";@ hide: TURNS", ";@ hide: TURNS NOSUCH\n;@ colour: red\n;@ label: LAID cards")
    g = recycle.loads(bad, "bad.rcy")
    found = [str(w) for w in g.note_warnings]
    assert found == [
        "bad.rcy:1:1: warning: structured comment ';@ hide: NOSUCH' ignored: the game has no storage NOSUCH",
        "bad.rcy:2:1: warning: structured comment ';@ colour: red' not understood: expected ;@ name:, ;@ hide:"
        ", ;@ label: or ;@ summary:",
        "bad.rcy:3:1: warning: structured comment ';@ label: LAID cards' ignored: expected ;@ label: NAME "
        '"words" [VALUE="words" ...]',
    ]
    # what is understood still counts, and the game plays the same: notes are comments
    assert g.words.hidden == {"TURNS"} and dict(g.words.labels) == {"LAID": "cards laid"}
    path = tmp_path / "bad.rcy"
    path.write_text(bad)
    r = CliRunner().invoke(app, ["check", str(path)])
    assert r.exit_code == 0 and f"{path}:2:1: warning: structured comment ';@ colour: red'" in r.output
    assert "3 warnings" in r.output


def test_a_label_warning_quotes_the_whole_note_with_its_closing_quote():
    """Issue 40.12: a note was cut at 30 characters, so a label's warning lost its closing quote."""
    bad = LAY.replace(";@ hide: TURNS", ';@ hide: TURNS\n;@ label: NOSUCH "cards laid on the table so far"')
    [w] = [str(w) for w in recycle.loads(bad, "bad.rcy").note_warnings]
    assert w == (
        "bad.rcy:2:1: warning: structured comment ';@ label: NOSUCH \"cards laid on the table so far\"' "
        "ignored: the game has no storage NOSUCH"
    )
    long = LAY.replace(";@ hide: TURNS", ";@ hide: TURNS\n;@ colour: " + "red " * 40)
    [w] = [str(w) for w in recycle.loads(long, "long.rcy").note_warnings]
    assert "';@ colour: red red" in w and "…' not understood" in w and len(w) < 240


def test_a_name_must_stand_next_to_an_option():
    far = LAY.replace("   ;@ name: lay\n", "").replace(";@ hide: TURNS", ";@ hide: TURNS\n;@ name: lay")
    g = recycle.loads(far, "far.rcy")
    assert not g.words.names
    assert [str(w) for w in g.note_warnings] == [
        "far.rcy:2:1: warning: structured comment ';@ name: lay' ignored: no option of a choice follows it "
        "(on the next line) or ends before it on its line"
    ]
    # on the same line, after the option's form
    same = LAY.replace("   ;@ name: lay\n", "").replace(
        "(inc (game sto TURNS))))))))", "(inc (game sto TURNS))))) ;@ name: lay {C}\n)))"
    )
    g = recycle.loads(same, "same.rcy")
    assert not g.note_warnings and len(g.words.names) == 1
    s = g.new_state(seed=3)
    while s.num_options() == 1:
        s.apply(0)
    options = public_options(s, s.legal_options())
    assert len(options) == 2 and [o.words for o in options] == [f"lay {g.card_name(o.cards[0])}" for o in options]
