"""The card table as the compiler's one view of a game (recycle/lang/forms/card_table.py): the
compiler and its closures are driven by a ``CardTable`` alone, and nothing in recycle/lang
reaches into the prepared game (``PreparedGame``, or ``state.game`` at run time)."""

import ast
from pathlib import Path
from types import SimpleNamespace

import recycle
from recycle.lang.forms.card_table import CardTable
from recycle.lang.forms.flow import FlowCompiler
from recycle.lang.nodes import Elaborator
from recycle.lang.nodes.sexpr import Scope
from recycle.lang.syntax.reader import parse_text

LANG = Path(recycle.__file__).resolve().parent / "lang"

TINY = """(game
  (setup (create players 2)
    (create deck (game iloc STOCK) (deck (RANK (A, TWO, THREE)) (SUIT (HEARTS)))))
  (do ((set (game points P) (((RANK : A) 11) ((RANK : TWO) 2)))
       (set (game str TOP) (cardatt RANK (top (game iloc STOCK))))))
  (scoring max 0))
"""


def test_the_compiler_is_driven_by_a_card_table_without_a_game():
    source = parse_text(TINY, "tiny.rcy")
    setup, flow = source.forms[0].items[1], source.forms[0].items[2]
    table = CardTable()
    comp = FlowCompiler(table, 2, source=source)
    scope = Scope(None, {})
    read = Elaborator()  # the compiler is handed nodes: the items read once first
    create = comp.c_item(read.item(setup.items[2], scope), scope)
    body = comp.c_item(read.item(flow, scope), scope)
    lay = comp.layout

    def new_state():
        return SimpleNamespace(
            locs=[[] for _ in range(lay.nlocs)],
            card_loc=[],
            events=None,
            ints=[0] * lay.nints,
            strs=[""] * lay.nstrs,
            points=[table.empty_points] * lay.npoints,
            work=10_000,
            pstack=[[0, None]],
        )

    s = new_state()
    env = [None] * comp.nslots
    create.run(s, env)
    assert len(table) == 3 and table.decks == ["DEFAULT"] * 3
    assert [a["RANK"] for a in table.attrs] == ["A", "TWO", "THREE"] and table.column("SUIT") == ["HEARTS"] * 3
    body.run(s, env)
    pm = s.points[lay.storage_slot("points", "game", "P")]
    awards = (((("RANK", "A"),), 11), ((("RANK", "TWO"),), 2))
    assert pm is table.point_map(awards) and pm.table == [11, 2, 0]
    assert s.strs[lay.storage_slot("str", "game", "TOP")] == "THREE"
    # a second game deals the same cards from the table, which does not grow
    s2 = new_state()
    create.run(s2, env)
    assert s2.locs == s.locs and [c is d for c, d in zip(s.locs[s.card_loc[0]], s2.locs[s2.card_loc[0]])] == [True] * 3
    assert len(table) == 3 and len(table.empty_points.table) == 3


def test_a_prepared_game_holds_its_table_and_reads_through_it():
    g = recycle.loads(TINY, "tiny.rcy")
    assert g._compiler.cards is g.card_table and g.card_attrs is g.card_table.attrs
    assert [g.card_name(c) for c in range(len(g.card_table))] == ["A♥", "2♥", "3♥"]


def reaches_into_the_game(text: str) -> list[str]:
    """What of ``text`` names the prepared game: ``PreparedGame``, an import of recycle's
    engine, or an attribute ``.game`` (``state.game`` is the prepared game)."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Name) and node.id == "PreparedGame":
            found.append(f"{node.lineno}: PreparedGame")
        elif isinstance(node, ast.Attribute) and node.attr in ("game", "PreparedGame"):
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (
            "engine" in (node.module or "").split(".") or any(a.name == "PreparedGame" for a in node.names)
        ):
            found.append(f"{node.lineno}: from {'.' * node.level}{node.module} import")
        elif isinstance(node, ast.Import) and any("engine" in a.name.split(".") for a in node.names):
            found.append(f"{node.lineno}: import")
    return sorted(found, key=lambda f: int(f.split(":")[0]))


def test_the_check_finds_a_reach_into_the_game():
    text = "from ..engine.game import PreparedGame\ndef f(s):\n    return s.game.layout\nimport recycle.engine\n"
    assert reaches_into_the_game(text) == ["1: from ..engine.game import", "3: .game", "4: import"]
    assert reaches_into_the_game("x: PreparedGame = None\ny = self.game.card_attrs") == ["1: PreparedGame", "2: .game"]


def test_no_module_of_lang_reaches_into_the_prepared_game():
    found = {
        str(p.relative_to(LANG)): hits
        for p in sorted(LANG.rglob("*.py"))
        if (hits := reaches_into_the_game(p.read_text(encoding="utf-8")))
    }
    assert not found, found
