"""recycle check's static warnings."""

from recycle.lang.nodes import elaborate
from recycle.lang.reading.lint import lint
from recycle.lang.syntax.reader import parse_text

from ..conftest import CORPUS, GAMES, requires_corpus


def warnings_for(src):
    return [str(w) for w in lint(elaborate(parse_text(src, "t.rcy")))]


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
    assert lint(elaborate(parse_text((GAMES / "schwimmen.rcy").read_text(), "s.rcy"))) == []


@requires_corpus()
def test_corpus_finds_the_one_real_slip():
    found = {}
    for path in sorted(CORPUS.glob("*.rcy")):
        text = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
        w = lint(elaborate(parse_text(text, path.name)))
        if w:
            found[path.name] = [str(x).split(": warning: ")[1] for x in w]
    # SheepsheadPicker5 and CheeseheadPickerBury5 test a LEASTER flag that nothing sets
    assert found == {
        "CheeseheadPickerBury5.rcy": ["sto LEASTER is read but never set (always 0)"],
        "SheepsheadPicker5.rcy": ["sto LEASTER is read but never set (always 0)"],
    }


def test_a_number_compared_with_an_attribute_of_numbers_is_told_not_a_crash():
    """Read from the nodes, the deck's values are the names the cards carry ("2"): comparing
    one with the number 2 is the slip the hint names (read from the s-expression, the values
    were kept as numbers and the message could not be written)."""
    src = """(game (setup (create players 2) (create deck (game iloc STOCK) (deck (RANK (2, 3, A)))))
 (do (((== (cardatt RANK (top (game iloc STOCK))) 2) (move (top (game iloc STOCK)) (top (game iloc STOCK))))))
 (scoring max 0))"""
    assert warnings_for(src) == [
        "t.rcy:2:51: warning: no card has RANK 2: the values of RANK are 2, 3, A "
        "(card attributes are names, not numbers)"
    ]
