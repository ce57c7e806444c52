"""recycle check's static warnings."""

from recycle.lang.reading.lint import lint
from recycle.lang.syntax.reader import parse_text

from ..conftest import CORPUS, GAMES, requires_corpus


def warnings_for(src):
    return [str(w) for w in lint(parse_text(src, "t.rcy").forms[0])]


def test_misspelt_location_and_unset_storage_are_reported():
    src = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (R (A, B)))))
 (do ((move (top (game iloc STOCK)) (top (game vloc PILE)))
      ((== (game sto FLAG) 1) (move (top (game vloc PLIE)) (top (game iloc STOCK))))))
 (scoring max 0))"""
    assert warnings_for(src) == [
        "t.rcy:3:42: warning: vloc PLIE never receives cards (no move, swap or deck puts cards there): "
        "a misspelt name?",
        "t.rcy:3:12: warning: sto FLAG is read but never set (always 0)",
    ]


def test_schwimmen_is_clean():
    assert lint(parse_text((GAMES / "schwimmen.rcy").read_text(), "s.rcy").forms[0]) == []


@requires_corpus()
def test_corpus_finds_the_one_real_slip():
    found = {}
    for path in sorted(CORPUS.glob("*.rcy")):
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
        w = lint(parse_text(text, path.name).forms[0])
        if w:
            found[path.name] = [str(x).split(": warning: ")[1] for x in w]
    # SheepsheadPicker5 and CheeseheadPickerBury5 test a LEASTER flag that nothing sets
    assert found == {
        "CheeseheadPickerBury5.rcy": ["sto LEASTER is read but never set (always 0)"],
        "SheepsheadPicker5.rcy": ["sto LEASTER is read but never set (always 0)"],
    }
