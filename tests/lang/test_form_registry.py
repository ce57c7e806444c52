"""The form registry (recycle.lang.forms.registry): every form defined once, the side tables derived
from it, and docs/forms.md generated from it."""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable

import pytest

from recycle.lang.forms import registry as forms_module
from recycle.lang.forms.flow import REGISTRY, FlowCompiler
from recycle.lang.forms.reads import NODE_METHODS
from recycle.lang.forms.registry import STRUCTURAL_HEADS, FormError, Kind, form, seal
from recycle.lang.forms.items import uses_rng
from recycle.lang.syntax.reader import OP, SYMBOL, Atom, SList, parse_file, parse_text

from ..conftest import CORPUS, GAMES, ROOT, requires_corpus

REFERENCE_MD = ROOT / "docs" / "reference.md"  # its grammar: a fresh clone has it
GAME_FILES = sorted(GAMES.glob("*.rcy")) + (sorted(CORPUS.glob("*.rcy")) if CORPUS.is_dir() else [])


def nodes(x):
    yield x
    if isinstance(x, SList):
        for i in x.items:
            yield from nodes(i)


def keyword_heads(x) -> set:
    """The keywords and operators in head position anywhere in ``x`` (NAMEs are not keywords)."""
    out = set()
    for n in nodes(x):
        if isinstance(n, SList) and n.items and isinstance(n.items[0], Atom):
            a = n.items[0]
            if a.kind == OP or (a.kind == SYMBOL and a.is_keyword):
                out.add(a.value)
    return out


def sexp(text: str):
    return parse_text(text, "t.rcy").forms[0]


# -- the registry covers the language ------------------------------------------------------
@pytest.mark.parametrize("path", GAME_FILES, ids=lambda p: p.name)
def test_every_head_of_every_game_is_a_form_or_structural(path):
    heads = keyword_heads(parse_file(path).forms[0])
    assert heads - REGISTRY.all_heads - STRUCTURAL_HEADS == set()


def grammar_heads() -> set:
    """The keywords that open a list in the grammar of docs/reference.md ("Syntax at a glance"):
    ``(move card card)``, ``(top|bottom|int loc)``, ``(==|!=|< ... value value)``. Lower-case
    words defined by a rule (``card ::= ...``) are nonterminals, and so are upper-case words
    (NAME, VAR), ``value`` and repetitions (``item+``), except a rule's own name opening its
    own form (``game ::= (game ...)``). ``owner`` is both: the nonterminal of ``(owner vloc|...
    str)`` and the form ``(owner card)``."""
    text = REFERENCE_MD.read_text(encoding="utf-8")
    block = re.search(r"### Syntax at a glance.*?```(.*?)```", text, re.S).group(1)
    nonterminals = set(re.findall(r"(\w+)\s*::=", block))
    heads = set()
    for line in block.splitlines():
        line = line.split(";", 1)[0]  # a comment of the grammar, e.g. "(below)", opens no form
        for lhs, rest in re.findall(r"(\w+)\s*::=(.*?)(?=\w+\s*::=|$)", line) or [(None, line)]:
            for alternatives in re.findall(r"\(([^\s()]+)", rest):
                for w in alternatives.split("|"):
                    if not w or w.isupper() or w == "value" or (w.rstrip("+*?") in nonterminals and w != lhs):
                        continue
                    heads.add(w)
    if "(owner card)" in block:
        heads.add("owner")
    return heads


def test_every_head_of_the_grammar_is_a_form_or_structural():
    heads = grammar_heads()
    assert {"move", "top", "sum", "+", "choice", "stage", "game", "owner", "==", "scoring"} <= heads  # it reads
    assert not heads & {"card", "loc", "int", "item", "item+", "NAME", "value"}  # nonterminals are not heads
    assert heads - REGISTRY.all_heads - STRUCTURAL_HEADS == set()


@requires_corpus()
def test_every_form_is_in_the_grammar_or_a_game():
    used = grammar_heads().union(*(keyword_heads(parse_file(p).forms[0]) for p in GAME_FILES))
    assert REGISTRY.all_heads - used == set()


# -- one place per form ----------------------------------------------------------------------
def test_each_form_is_one_method_with_its_syntax_first_in_its_docstring():
    methods = [f.compile for f in REGISTRY.forms]
    assert len(methods) == len(set(methods))
    for f in REGISTRY.forms:
        assert getattr(FlowCompiler, f.method) is f.compile
        doc = f.compile.__doc__.strip().splitlines()
        assert doc[0] == f.syntax and f.meaning, f.method
    keys = [(f.kind, f.head) for f in REGISTRY.forms if f.head is not None]
    assert len(keys) == len(set(keys))


def test_heads_shared_by_several_kinds_are_registered_per_kind():
    def kinds(head):
        return {f.kind for f in REGISTRY.forms if f.head == head}

    assert kinds("top") == kinds("bottom") == {Kind.CARD, Kind.LOC}
    assert kinds("any") == {Kind.BOOL, Kind.FLOW}
    assert kinds("all") == {Kind.BOOL, Kind.FLOW, Kind.COLL}
    assert kinds("let") == {Kind.FLOW, Kind.LOC, Kind.GROUPS, Kind.COLL}


# -- the derived tables ------------------------------------------------------------------------
def test_the_derived_tables_are_those_the_compiler_was_written_with():
    # the hand-kept tables they replace (shapes.py, purity.py, items.uses_rng, structure.py)
    only = REGISTRY.only
    assert only[Kind.GROUPS] == {"partition", "tuples", "subsets", "runs"}
    assert only[Kind.LOC] == {"union", "intersect", "disjunction", "sort", "filter", "run"}
    assert only[Kind.INT] == {
        "+",
        "-",
        "*",
        "//",
        "%",
        "^",
        "tri",
        "fib",
        "random",
        "size",
        "sum",
        "score",
        "scoremax",
        "scoremin",
        "pid",
    }
    assert only[Kind.BOOL] == {"and", "or", "not", "==", "!=", "<", ">", "<=", ">="}
    assert REGISTRY.drawing == {"random", "shuffle", "max", "min"}
    assert REGISTRY.binders == {"any", "all", "filter", "let"}
    assert REGISTRY.safe == {
        "and",
        "or",
        "not",
        "==",
        "!=",
        "<",
        ">",
        "<=",
        ">=",
        "+",
        "-",
        "*",
        "//",
        "%",
        "^",
        "tri",
        "fib",
        "size",
        "sum",
        "score",
        "cardatt",
        "top",
        "bottom",
        "partition",
        "tuples",
        "subsets",
        "runs",
        "union",
        "intersect",
        "disjunction",
        "sort",
        "range",
        "actual",
        "run",
        "filter",
        "any",
        "all",
        "let",
        "scoremax",
        "scoremin",
        "pid",
        "member",
    }
    assert REGISTRY.expensive == {
        "partition",
        "tuples",
        "subsets",
        "runs",
        "sum",
        "filter",
        "any",
        "all",
        "union",
        "sort",
        "run",
        "intersect",
        "disjunction",
        "scoremax",
        "scoremin",
    }
    assert REGISTRY.operators == {"==", "!=", "<", ">", "<=", ">=", "+", "-", "*", "//", "%", "^"}
    assert REGISTRY.puts == {"move": (2,), "remember": (2,), "swap": (1, 2), "create": (2, 3)}
    assert REGISTRY.sets == {"set": 1, "inc": 1, "dec": 1}


def test_the_derived_tables_follow_the_facts_of_each_form():
    expr = [f for f in REGISTRY.forms if f.kind in Kind.EXPRESSIONS and f.head]
    for f in REGISTRY.forms:
        assert not (f.draws and f.pure), f.method
        if f.head is None:
            continue
        assert (f.head in REGISTRY.drawing) == any(g.draws for g in REGISTRY.forms if g.head == f.head)
        if f.kind in Kind.EXPRESSIONS:
            assert (f.head in REGISTRY.safe) == all(g.pure for g in expr if g.head == f.head)
            assert f.head in REGISTRY.heads[f.kind]
        if f.expensive and f.kind in Kind.EXPRESSIONS:
            assert f.head in REGISTRY.expensive
    for kind, heads in REGISTRY.only.items():
        assert heads <= REGISTRY.heads[kind]
        for h in heads:
            assert {f.kind for f in REGISTRY.forms if f.head == h} == {kind}


ENTRY_POINTS: dict[str, Callable] = {
    Kind.INT: FlowCompiler.c_int,
    Kind.BOOL: FlowCompiler.c_bool,
    Kind.STR: FlowCompiler.c_str,
    Kind.CARD: FlowCompiler.c_card,
    Kind.LOC: FlowCompiler.c_cards,
    Kind.GROUPS: FlowCompiler.c_groups,
    Kind.COLL: FlowCompiler.c_coll,
    Kind.PLAYER: FlowCompiler.c_player,
    Kind.TEAM: FlowCompiler.c_team,
    Kind.ACTION: FlowCompiler.c_item,
    Kind.FLOW: FlowCompiler.c_item,
}


def test_every_form_is_compiled_from_the_nodes_of_its_class():
    """Each registered form's method has the node classes the elaborator reads it as
    (``NODE_METHODS``), and only registered methods are named there."""
    methods = {f.method for f in REGISTRY.forms}
    assert set(NODE_METHODS.values()) - {"c_members"} == methods
    assert all(getattr(FlowCompiler, m).reads_node for m in methods)


@pytest.mark.parametrize("kind", Kind.ALL)
def test_each_entry_point_chooses_by_the_node_class(kind):
    """An entry point hands a form's node to the method of its class, whatever its head."""
    from recycle.lang.nodes.sexpr import Scope

    comp = FlowCompiler(None, 2)
    classes = [c for c in NODE_METHODS if kind == c.KIND]
    assert classes
    for cls in classes:
        method = NODE_METHODS[cls]
        setattr(comp, method, lambda x, scope, *args, m=method: ("compiled", m, type(x)))
        node = cls(*[None for f in dataclasses.fields(cls) if not f.kw_only])
        assert ENTRY_POINTS[kind](comp, node, Scope()) == ("compiled", method, cls)


def _item(text: str):
    """The node of one action written alone (a compiled item keeps its node: ``Item.node``)."""
    from recycle.lang.nodes.flow import Elaborator
    from recycle.lang.nodes.sexpr import Scope

    return Elaborator().item(sexp(text), Scope())


def test_uses_rng_is_true_exactly_for_forms_holding_a_drawing_form():
    from recycle.lang.nodes import elaborate
    from recycle.lang.nodes.walk import walk

    drawing = {f.head for f in REGISTRY.forms if f.draws}
    assert uses_rng(_item("((> (random 3) 1) (set (game sto X) 1))"))
    assert uses_rng(_item("(do ((shuffle (game iloc STOCK))))"))
    assert uses_rng(_item("(move (max (game vloc T) using (game points P)) (top (game vloc W)))"))
    assert not uses_rng(_item("(move (top (game iloc STOCK)) (top (game vloc W)))"))
    # every node of the games draws exactly when the form it was read from holds a drawing form
    for path in GAME_FILES[:12]:
        game = elaborate(parse_file(path))
        for n in walk(game):
            if isinstance(n.source, SList):
                assert uses_rng(n) == any(isinstance(m, SList) and m.head in drawing for m in nodes(n.source)), n.source


# -- the reference -----------------------------------------------------------------------------
def test_docs_forms_md_is_generated_from_the_registry():
    doc = (ROOT / "docs" / "forms.md").read_text()
    assert doc == REGISTRY.markdown(), "docs/forms.md is stale: run  python tools/forms_doc.py > docs/forms.md"
    for f in REGISTRY.forms:
        assert f"`{f.method}`" in doc


# -- the import-time check -------------------------------------------------------------------
@pytest.fixture
def sandbox():
    """The registry's module state, restored after the test (which may add or seal forms)."""
    saved = (
        list(forms_module._FORMS),
        dict(forms_module._BY_KEY),
        list(forms_module._MENTIONS),
        list(forms_module._SEALED),
    )
    yield
    forms_module._FORMS[:], forms_module._MENTIONS[:], forms_module._SEALED[:] = saved[0], saved[2], saved[3]
    forms_module._BY_KEY.clear()
    forms_module._BY_KEY.update(saved[1])


def test_a_new_form_is_its_node_its_reading_and_one_decorated_method(sandbox, monkeypatch):
    """A form added in one place: its node class, its reading (the s-expression's shape, checked
    once) and its compile method, registered together by ``@form(node=, reads=)``; the elaborator
    reads it, the compiler's entry points hand its node to the method."""
    from recycle.lang.nodes import Elaborator
    from recycle.lang.nodes.base import form_node
    from recycle.lang.nodes.sexpr import Scope

    Twice = form_node("Twice", "n", Kind.INT, "twice", "(twice N): two times N.")

    def read_twice(e, x, scope):
        return Twice(e.int_(x.items[1], scope), span=x.span)

    class WithTwice(FlowCompiler):
        @form("twice", "(twice N)", Kind.INT, pure=True, node=Twice, reads=read_twice)
        def int_twice(self, x, scope):
            """(twice N)

            Two times N."""
            n = self.c_int(x.n, scope)
            return lambda s, e: 2 * n(s, e)

    reg = seal(WithTwice)
    assert reg.lookup(Kind.INT, "twice").method == "int_twice" and "twice" in reg.safe
    assert reg.readings["int_twice"] is read_twice and reg.node_methods[Twice] == "int_twice"
    monkeypatch.setitem(NODE_METHODS, Twice, "int_twice")
    node = Elaborator(reg).int_(sexp("(+ (twice 3) 1)"), Scope())
    assert isinstance(node.operands[0], Twice) and node.operands[0].n.value == 3
    comp = WithTwice(None, 2)
    comp.forms = reg
    assert comp.c_int(node, Scope())(None, []) == 7
    assert "(twice N)" in reg.markdown()


def test_the_check_rejects_a_form_registered_twice(sandbox):
    with pytest.raises(FormError, match=r"\(tri \.\.\.\) is registered twice"):

        @form("tri", "(tri N)", Kind.INT)
        def int_tri_again(self, x, scope):
            """(tri N)

            Again."""


def test_the_check_rejects_a_docstring_without_its_syntax(sandbox):
    class Bad(FlowCompiler):
        @form("halve", "(halve N)", Kind.INT)
        def int_halve(self, x, scope):
            """Half of N."""

    with pytest.raises(FormError, match=r"docstring must start with its syntax '\(halve N\)'"):
        seal(Bad)


def test_the_check_rejects_a_shadowed_form_method(sandbox):
    class Shadowing(FlowCompiler):
        def int_tri(self, x, scope):  # hides the registered method
            return None

    with pytest.raises(FormError, match=r"int_tri.*is not the method Shadowing.int_tri"):
        seal(Shadowing)


def test_the_check_rejects_a_mention_of_an_unknown_head(sandbox):
    # a module imported after the registry is sealed is checked at once, the others by seal
    with pytest.raises(FormError, match=r"a test names head.* frobnicate"):
        forms_module.mention("a test", ("move", "frobnicate"))
    with pytest.raises(FormError, match=r"a test names head.* frobnicate"):
        seal(FlowCompiler)


@pytest.mark.parametrize(
    "facts, message",
    [
        ({"role": "gizmo"}, "unknown role 'gizmo'"),
        ({"words": "halve {1:twice}"}, r"the field \{1:twice\} of its words"),
        ({"words": "halve {1"}, "unbalanced braces"),
        ({"loops": True}, "a form that loops binds its variable"),
    ],
)
def test_the_check_rejects_a_bad_role_words_or_loops(sandbox, facts, message):
    class Bad(FlowCompiler):
        @form("halve", "(halve N)", Kind.INT, **facts)
        def int_halve(self, x, scope):
            """(halve N)

            Half of N."""

    with pytest.raises(FormError, match=message):
        seal(Bad)


def test_the_registry_is_not_used_before_it_is_sealed(sandbox):
    forms_module._SEALED[:] = []
    with pytest.raises(FormError, match="before the compiler was assembled"):
        forms_module.registry()


# -- modules read facts of forms, not their head keywords --------------------------------------
# the modules that know a form only by the facts registered with it (role, words, loops, puts,
# sets ...): none compares a form's head keyword with a string
FACT_READERS = (
    "recycle/study/structure.py",
    "recycle/lang/forms/wording.py",
    "recycle/lang/reading/lint.py",
    "recycle/lang/forms/costs.py",
    "recycle/native/purity.py",
    "recycle/lang/reading/deal_limit.py",
    "recycle/lang/reading/deal_values.py",
)


def test_the_facts_the_readers_use_are_those_their_head_comparisons_were():
    assert REGISTRY.loops == {"any", "all", "filter"}  # costs.py: ("any", "all", "filter")
    flow = {h: REGISTRY.lookup(Kind.FLOW, h).role for h in REGISTRY.heads[Kind.FLOW]}
    assert flow == {
        "stage": "stage",
        "choice": "choice",
        "do": "block",
        "any": "offer",
        "all": "loop",
        "let": "binding",
    }
    assert {h for h, roles in REGISTRY.roles.items() if roles & {"junction"}} == {"and", "or"}
    assert {h for h, roles in REGISTRY.roles.items() if roles & {"quantifier"}} == {"any", "all"}
    assert {h for h, roles in REGISTRY.roles.items() if roles & {"equality"}} == {"==", "!="}
    assert REGISTRY.words["sum"] == ("sum {1} {2=using} {3}",)
    assert REGISTRY.lookup(Kind.ACTION, "move").words == ("move {1} → {2}",)


def _is_head(node) -> bool:
    """Does ``node`` read a form's head: ``head_of(x)``, ``_head(x)``, ``x.head``, ``h``,
    ``head`` or ``x.items[0].value``?"""
    if isinstance(node, ast.Call):
        f = node.func
        return (f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")) in ("head_of", "_head")
    if isinstance(node, ast.Attribute) and node.attr == "head":
        return True
    if isinstance(node, ast.Name) and node.id in ("h", "head"):
        return True
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "value"
        and isinstance(node.value, ast.Subscript)
        and isinstance(node.value.value, ast.Attribute)
        and node.value.value.attr == "items"
        and isinstance(node.value.slice, ast.Constant)
        and node.value.slice.value == 0
    )


def head_comparisons(source: str) -> list[str]:
    """``line: head`` for each comparison of a form's head with the head of a registered form
    (``h == "choice"``, ``head_of(x) in ("any", "all")``); structural heads (game, setup,
    deck ...) are no forms and may be compared."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(_is_head(s) for s in sides):
            continue
        for s in sides:
            for c in ast.walk(s):
                if isinstance(c, ast.Constant) and isinstance(c.value, str) and c.value in REGISTRY.all_heads:
                    found.append(f"{node.lineno}: {c.value}")
    return found


def test_the_head_check_finds_each_kind_of_comparison():
    code = (
        'h == "choice"\nif head_of(x) in ("any", "all", "deck"): pass\n_head(y) != "move"\n'
        'x.head == "stage"\nx.items[0].value in ("filter",)\nh == "setup"\nkind == "choice"\n'
    )
    assert head_comparisons(code) == ["1: choice", "2: any", "2: all", "3: move", "4: stage", "5: filter"]


@pytest.mark.parametrize("module", FACT_READERS)
def test_these_modules_compare_no_form_head(module):
    found = head_comparisons((ROOT / module).read_text(encoding="utf-8"))
    assert not found, (
        f"{module} compares form heads ({', '.join(found)}): register a fact with the form "
        "instead (forms/registry.py: role, words, loops ...; docs/development.md, 'Adding a form')"
    )


def test_a_table_of_writers_refuses_a_head_the_registry_does_not_have():
    """A table of writers by (kind, head) (the native writer's) takes only forms of the registry:
    a writer for a head the registry does not have is refused, and so is a second one."""
    from recycle.lang.forms.writers import Writers

    bad = Writers("test")

    @bad.register(Kind.INT, "frobnicate")
    def _frobnicate(ew, node, scope):
        return None

    with pytest.raises(ValueError, match=r"a test writer for \(frobnicate \.\.\.\) as integer"):
        bad.seal()
    with pytest.raises(ValueError, match="two test writers"):
        bad.register(Kind.INT, "frobnicate")(_frobnicate)
