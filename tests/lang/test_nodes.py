"""The game read once (issue 41): every game elaborates into frozen, positioned, typed nodes;
the kind of a type-directed form is decided there; variables are bound to their binders and
constants folded; and a malformed form is refused with the compiler's own message."""

from __future__ import annotations

import ast
import dataclasses
import glob

import pytest

import recycle
from recycle.lang.forms.flow import REGISTRY
from recycle.lang.nodes import Elaborator, elaborate
from recycle.lang.nodes.base import Const, Kind, Loc, Var, Word
from recycle.lang.nodes.flow import Choice, Loop, Stage
from recycle.lang.nodes.numbers import Equal, Size, Sum
from recycle.lang.nodes.places import Top, TopN
from recycle.lang.syntax.reader import parse_file, parse_text

from ..conftest import CORPUS, GAMES, ROOT


def game_files() -> list:
    own = sorted(GAMES.glob("*.rcy")) + sorted((ROOT / "tests" / "lang" / "dialect").glob("*.rcy"))
    own += sorted((ROOT / "tests" / "limits").glob("*.rcy"))
    return own


def text_of(body: str, declare: str = "", scoring: str = "(scoring max 0)") -> str:
    return f"""(game {declare}
 (setup (create players 2)
  (create deck (game iloc STOCK) (deck (RANK (A, B, C)) (SUIT (X, Y)))))
 {body}
 {scoring})"""


def walk(node):
    """Every node under ``node`` (itself included)."""
    yield node
    values = [getattr(node, f.name) for f in dataclasses.fields(node)] if dataclasses.is_dataclass(node) else []
    for v in values:
        for w in v if isinstance(v, tuple) else (v,):
            if dataclasses.is_dataclass(w) and not isinstance(w, type):
                yield from walk(w)


@pytest.mark.parametrize("path", game_files(), ids=lambda p: p.name)
def test_every_game_elaborates_into_hashable_nodes(path):
    game = elaborate(parse_file(path))
    assert hash(game) == hash(elaborate(parse_file(path)))
    assert game == elaborate(parse_file(path))
    assert game.flow and all(n.span is not None for n in game.flow)


def test_every_corpus_game_elaborates():
    paths = sorted(glob.glob(str(CORPUS / "**" / "*.rcy"), recursive=True))
    if not paths:
        pytest.skip(f"no corpus at {CORPUS}")
    assert len(paths) >= 50, paths  # the CardStock corpus, not a stray file
    for path in paths:
        assert elaborate(parse_file(path)).flow, path


def test_nodes_are_frozen_and_equal_wherever_they_are_written():
    one = elaborate(parse_text(text_of("(do ((shuffle (game iloc STOCK))))")))
    moved = elaborate(parse_text("\n\n" + text_of("(do ((shuffle (game iloc STOCK))))")))
    assert one == moved and hash(one) == hash(moved)
    assert one.flow[0].span.line + 2 == moved.flow[0].span.line
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.flow[0].body = ()


def test_spans_point_at_the_form():
    body = "(stage player (end (== (size (game iloc STOCK)) 0))\n   (choice ((move (top (game iloc STOCK)) (top (game vloc D))))))"
    text = text_of(body)
    game = elaborate(parse_text(text, "s.rcy"))
    stage = game.flow[0]
    assert isinstance(stage, Stage) and not stage.team
    lines = text.splitlines()
    for node in walk(game):
        if isinstance(node, (Stage, Choice, Equal, Size)):
            s = node.span
            assert s.file == "s.rcy"
            head = {Stage: "(stage", Choice: "(choice", Equal: "(==", Size: "(size"}[type(node)]
            assert lines[s.line - 1][s.column - 1 :].startswith(head), (node, s)
            assert (s.end_line, s.end_column) > (s.line, s.column)


def test_top_is_read_as_a_card_or_as_cards_once():
    body = (
        "(stage player (end (== (top (game iloc STOCK)) (top (game iloc STOCK))))"
        " (move (top (game iloc STOCK)) (top (game vloc D)))"
        " (all (top 2 (game iloc STOCK)) 'C (move 'C (bottom (game vloc D)))))"
    )
    game = elaborate(parse_text(text_of(body)))
    stage = game.flow[0]
    assert isinstance(stage.end, Equal) and stage.end.cards
    assert isinstance(stage.end.a, Top) and stage.end.a.location == Loc(
        stage.end.a.location.owner, "iloc", Word("STOCK")
    )
    loop = stage.body[1]
    assert isinstance(loop, Loop) and isinstance(loop.collection, TopN)


def test_variables_are_bound_to_their_binder_and_constants_folded():
    body = "(all player 'P (set ('P sto SCORE) (sum ('P vloc HAND) using (game points VALUES))))"
    game = elaborate(parse_text(text_of(f"(do ({body}))", declare="(declare 3 'LIMIT)")))
    loop = game.flow[0].body[0]
    owner = loop.item.storage.holder
    assert isinstance(owner, Var) and owner.binding.binder == "all" and owner.binding.hint == "player"
    assert owner.binding.at == loop.span and loop.variable is owner.binding
    assert isinstance(loop.item.value, Sum)
    assert game.declares[0].value == Const("LIMIT", 3)


@pytest.mark.parametrize(
    "body",
    [
        "(do ((move (top (game iloc STOCK)))))",
        "(do ((shuffle (top (game iloc STOCK)))))",
        "(do ((set (game sto X) (cardatt RANK (top (game iloc STOCK))))))",
        "(stage player (end (size (game iloc STOCK))) (turn pass))",
        "(do ((move (top (game iloc STOCK)) (top (game mem SEEN)))))",
        "(do ((move (top (game mem SEEN)) (top (game vloc D)))))",
        "(do ((inc (game str X))))",
        "(choice ((choice ((turn pass)))))",
        "(do ((+ 1 2)))",
        "(do ((set (game sto X) (- 1 2 3))))",
        "(do ((set (game sto X) 'NOPE)))",
        "(do ((repeat all (shuffle (game iloc STOCK)))))",
        "(do ((forget (top (game vloc D)))))",
        "(do ((repeat all (move))))",
        "(do ((move (top (game iloc STOCK)) (top (game vlok D)))))",
    ],
)
def test_a_malformed_form_is_refused_with_the_compilers_message(body):
    text = text_of(body)
    with pytest.raises(recycle.RecycleError) as compiled:
        recycle.loads(text, "m.rcy")
    with pytest.raises(recycle.RecycleError) as read:
        elaborate(parse_text(text, "m.rcy"))
    assert read.value.format() == compiled.value.format()


def test_every_form_has_its_reading():
    missing = [
        f.method
        for f in REGISTRY.forms
        if f.head is not None
        and not callable(getattr(Elaborator, "e_" + f.method, None))
        and f.method not in REGISTRY.readings
    ]
    assert missing == []


def test_a_form_kept_whole_in_its_module_is_read_compiled_and_written_from_there():
    """``indexed`` is one module (``lang/forms/form_indexed.py``): its node class, its reading
    and its native writer are registered with the form, and found by the elaborator, the
    compiler's entry points and the native writer without any other module naming them."""
    from recycle.lang.forms import form_indexed
    from recycle.lang.forms.reads import NODE_METHODS
    from recycle.lang.forms.writers import NATIVE_WRITERS

    f = REGISTRY.lookup(Kind.COLL, "indexed")
    assert f.node is form_indexed.Indexed and f.reads is form_indexed.read_indexed
    assert REGISTRY.readings["coll_indexed"] is form_indexed.read_indexed
    assert NODE_METHODS[form_indexed.Indexed] == "coll_indexed"
    assert NATIVE_WRITERS[(Kind.COLL, form_indexed.Indexed)] is form_indexed.write_indexed
    node = elaborate(parse_file(str(ROOT / "tests" / "lang" / "dialect" / "rummy.rcy")))
    found = sorted({(n.kind, n.name) for n in walk(node) if isinstance(n, form_indexed.Indexed)})
    assert found == [("vloc", "RUN"), ("vloc", "SET")]


# the calls that read an s-expression's shape: a method that reads its node needs none of them
SHAPE_READERS = {"head_of", "kw", "is_atom", "is_location_form", "is_storage_form", "literal_names", "arity"}


def shape_reading(fn: ast.FunctionDef) -> list[str]:
    """What the body of ``fn`` reads of an s-expression: ``.items`` and the shape tests."""
    found = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute) and node.attr == "items":
            found.append(f"{fn.name}:{node.lineno}: .items")
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name in SHAPE_READERS:
                found.append(f"{fn.name}:{node.lineno}: {name}()")
    return found


def reads_its_node(fn: ast.FunctionDef) -> bool:
    """Is ``fn`` a compile method handed its node: marked ``@reads_node``, or registered with
    its node class (``@form(..., node=...)``, a form kept whole in its module)?"""
    for d in fn.decorator_list:
        if getattr(d, "id", "") == "reads_node":
            return True
        if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "form" and any(k.arg == "node" for k in d.keywords):
            return True
    return False


def test_the_methods_reading_nodes_read_no_s_expression():
    forms = ROOT / "recycle" / "lang" / "forms"
    marked, found = [], []
    for path in sorted(forms.glob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(fn, ast.FunctionDef) and reads_its_node(fn):
                marked.append(fn.name)
                found += [f"{path.name}:{f}" for f in shape_reading(fn)]
    assert len(marked) >= 60 and not found, found
    assert sorted(shape_reading(ast.parse("def f(x):\n    return kw(x.items[1], 'top')").body[0])) == [
        "f:2: .items",
        "f:2: kw()",
    ]


def test_a_form_registered_without_a_reading_is_a_bug_of_recycle_s_not_read_later():
    """The compiler is handed nodes only: a form without a reading is not stood as a node its
    compile method would read from the s-expression (the bridge is gone), it is refused."""
    from recycle.errors import RecycleBug
    from recycle.lang.nodes.sexpr import Scope

    with pytest.raises(RecycleBug, match="the form compiled by int_double has no reading"):
        Elaborator().read_as("int_double", parse_text("(g (double 2))").forms[0].items[1], Scope())
