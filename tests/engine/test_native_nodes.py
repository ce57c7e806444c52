"""The native writer reads the game's nodes (recycle/lang/nodes), not the reader's s-expressions.

* no module of recycle/native names ``SList`` or compares a form's head string
  (tools/count_readers.py's count), and writers are registered by node class;
* a condition ranging over a list of names inside a choice's option is written as a condition
  (read as an s-expression, it was written out name by name as if it were an item of options, and
  refused: ``(do ...) as boolean``), and plays as the reference interpreter does;
* a form the writer lacks is refused with its form and line.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("numpy", reason="the native extra is not installed (pip install -e '.[native]'): no numpy")

from recycle.engine.game import rollout_seed
from recycle.native import NativeUnsupported, available, native_game, native_source

from ..conftest import tiny

ROOT = Path(__file__).resolve().parents[2]


def count_readers():
    spec = importlib.util.spec_from_file_location("count_readers", ROOT / "tools" / "count_readers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_module_of_the_native_package_reads_s_expressions_or_head_strings():
    found = count_readers().count(ROOT)
    assert [m for m in found["slist"] if m.startswith("recycle/native/")] == []
    assert {m: h for m, h in found["heads"].items() if m.startswith("recycle/native/")} == {}


def test_writers_are_registered_by_node_class():
    from recycle.lang.nodes.flow import Choice, Stage
    from recycle.lang.nodes.numbers import Add
    from recycle.native import module  # noqa: F401 - every writer registered
    from recycle.native import registry

    registry.seal()
    written = registry.written()
    assert ("flow", Choice.__name__) in written and ("flow", Stage.__name__) in written
    assert ("integer", Add.__name__) in written
    assert all(isinstance(name, str) and name[0].isupper() for _, name in written)


CONDITIONS_OVER_NAMES = """(stage player (end (== (size (game iloc STOCK)) 0))
  (choice (
    ((all (X, Y) 'S (> (size (game iloc STOCK)) 0)) (move (top (game iloc STOCK)) (top ((current player) iloc HAND))))
    ((any (X, Y) 'S (== (cardatt SUIT (top (game iloc STOCK))) 'S)) (move (top (game iloc STOCK)) (top (game iloc PILE))))
  )))"""


def test_a_condition_over_names_in_an_option_is_written_as_a_condition():
    game = tiny(CONDITIONS_OVER_NAMES, scoring="(scoring max (size ((current player) iloc HAND)))")
    src = native_source(game)
    assert "def all_of_" in src and "def any_of_" in src  # the two conditions, each a function


@pytest.mark.skipif(not available(), reason="the native engine needs NumPy and a C compiler")
def test_a_condition_over_names_in_an_option_plays_as_the_reference():
    game = tiny(CONDITIONS_OVER_NAMES, scoring="(scoring max (size ((current player) iloc HAND)))")
    seeds = [rollout_seed(3, i) for i in range(10)]
    scores, counts, places = native_game(game).rollouts(seeds, 10_000, game.max_work, places=True)
    for i, seed in enumerate(seeds):
        s = game.random_rollout(seed, 10_000)
        assert int(counts[i, 0]) == 0
        assert [int(v) for v in scores[i]] == list(s.scores)
        assert [int(v) for v in counts[i, 1:4]] == [s.steps, s.decisions, s.options_total]
        assert [int(v) for v in places[i]] == [int(v) for v in s.card_loc]


def test_a_form_the_writer_lacks_is_refused_with_its_form_and_line():
    game = tiny(
        "(stage player (end (== (size (game iloc STOCK)) 0))\n"
        " (set (game sto N) (^ 2 (size (game iloc STOCK))))\n"
        " (move (top (game iloc STOCK)) (top (game iloc PILE))))"
    )
    with pytest.raises(NativeUnsupported) as raised:
        native_source(game)
    assert raised.value.what == "(^ ...) as integer"
    assert raised.value.where() == "line 5"


def test_the_writer_s_tools_are_each_defined_once():
    """The tools a form's native writer calls on ``w`` come from mixins of ``Writer`` written by
    several hands: a name defined in two would silently stand for one of them."""
    from recycle.native.writer import Writer

    seen: dict = {}
    for base in Writer.__mro__[1:]:
        for name in vars(base):
            if not name.startswith("__"):
                assert name not in seen, f"{name} is defined by {seen[name]} and {base.__name__}"
                seen[name] = base.__name__
