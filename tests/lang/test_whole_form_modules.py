"""The group-list, collection and action forms, each kept whole in its module of
``lang/forms/`` (issue 41, requirement 4): its reading, meaning, facts and native writer are
registered together there, and found by the elaborator, the compiler's entry points and the
native writer without any other module naming them."""

import pytest

from recycle.lang.forms import registry as forms_module
from recycle.lang.forms.flow import REGISTRY, FlowCompiler
from recycle.lang.forms.reads import NODE_METHODS
from recycle.lang.forms.registry import FormError, Kind, form, seal
from recycle.lang.forms.writers import NATIVE_WRITERS
from recycle.lang.nodes import actions as A
from recycle.lang.nodes import groups as G
from recycle.lang.nodes.base import form_node
from recycle.lang.nodes.flow import Elaborator
from recycle.lang.syntax.reader import parse_text
from recycle.lang.nodes.sexpr import Scope

# (kind, head) -> the module keeping the form whole, and the node classes it reads into
WHOLE = {
    (Kind.LOC, None): ("form_group_lists", (G.Pick,)),
    (Kind.GROUPS, "partition"): ("form_group_lists", (G.Partition,)),
    (Kind.GROUPS, "tuples"): ("form_group_lists", (G.Tuples,)),
    (Kind.GROUPS, "subsets"): ("form_group_lists", (G.Subsets,)),
    (Kind.GROUPS, "runs"): ("form_group_lists", (G.Runs,)),
    (Kind.GROUPS, "let"): ("form_group_lists", (G.LetGroups,)),
    (Kind.COLL, "range"): ("form_collections", (G.Range,)),
    (Kind.COLL, "other"): ("form_collections", (G.Others,)),
    (Kind.COLL, "all"): ("form_collections", (G.Each,)),
    (Kind.COLL, "let"): ("form_collections", (G.LetColl,)),
    (Kind.ACTION, "move"): ("form_moves", (A.Move,)),
    (Kind.ACTION, "remember"): ("form_moves", (A.Remember,)),
    (Kind.ACTION, "forget"): ("form_moves", (A.Forget,)),
    (Kind.ACTION, "swap"): ("form_swap", (A.SwapPlaces, A.SwapCards)),
    (Kind.ACTION, "shuffle"): ("form_shuffle", (A.Shuffle, A.Faro)),
    (Kind.ACTION, "set"): ("form_storage", (A.Set, A.SetPoints)),
    (Kind.ACTION, "inc"): ("form_storage", (A.Inc,)),
    (Kind.ACTION, "dec"): ("form_storage", (A.Dec,)),
    (Kind.ACTION, "cycle"): ("form_turn_order", (A.Cycle,)),
    (Kind.ACTION, "turn"): ("form_turn_order", (A.Pass,)),
    (Kind.ACTION, "repeat"): ("form_repeat", (A.Repeat, A.RepeatAll)),
    (Kind.ACTION, "create"): ("form_create", (A.Deck, A.Teams)),
}


def registered(kind, head):
    if head is not None:
        return REGISTRY.lookup(kind, head)
    return next(f for f in REGISTRY.forms if f.kind == kind and f.head is None and f.label == "group")


@pytest.mark.parametrize("key", list(WHOLE), ids=[f"{k}-{h}" for k, h in WHOLE])
def test_a_form_s_reading_meaning_and_nodes_are_registered_from_its_one_module(key):
    module, nodes = WHOLE[key]
    f = registered(*key)
    where = f"recycle.lang.forms.{module}"
    assert f.compile.__module__ == where and f.reads.__module__ == where
    assert f.nodes == nodes
    assert REGISTRY.readings[f.method] is f.reads
    assert {n: NODE_METHODS[n] for n in nodes} == {n: f.method for n in nodes}
    # the elaborator has no reading of its own for it: the module's is the one it finds
    assert not hasattr(Elaborator, "e_" + f.method)
    # its native writers, when it has some, are the same module's
    writers = {w.__module__ for (k, cls), w in NATIVE_WRITERS.items() if cls in nodes}
    assert writers <= {where}


def test_the_native_writers_of_the_group_lists_and_actions_live_with_their_forms():
    written = {cls.__name__: w.__module__.rsplit(".", 1)[1] for (k, cls), w in NATIVE_WRITERS.items()}
    assert {n: written[n] for n in ("Pick", "Partition", "Tuples", "Subsets", "Runs")} == dict.fromkeys(
        ("Pick", "Partition", "Tuples", "Subsets", "Runs"), "form_group_lists"
    )
    assert {n: written[n] for n in ("Move", "Remember", "Forget", "SwapPlaces", "SwapCards", "Shuffle", "Faro")} == {
        "Move": "form_moves",
        "Remember": "form_moves",
        "Forget": "form_moves",
        "SwapPlaces": "form_swap",
        "SwapCards": "form_swap",
        "Shuffle": "form_shuffle",
        "Faro": "form_shuffle",
    }
    assert {n: written[n] for n in ("Set", "SetPoints", "Inc", "Dec", "Cycle", "Pass", "Repeat", "RepeatAll")} == {
        **dict.fromkeys(("Set", "SetPoints", "Inc", "Dec"), "form_storage"),
        **dict.fromkeys(("Cycle", "Pass"), "form_turn_order"),
        **dict.fromkeys(("Repeat", "RepeatAll"), "form_repeat"),
    }


@pytest.mark.parametrize(
    "text, node",
    [
        ("(swap (game vloc A) (game vloc B))", A.SwapPlaces),
        ("(swap (top (game vloc A)) (top (game vloc B)))", A.SwapCards),
        ("(shuffle faro (game vloc A) (game vloc B))", A.Faro),
        ("(repeat all (move (top (game vloc A)) (top (game vloc B))))", A.RepeatAll),
        ("(create teams (0, 2) (1, 3))", A.Teams),
    ],
)
def test_each_shape_of_a_form_is_read_into_its_node_by_the_form_s_module(text, node):
    reader = Elaborator(REGISTRY)
    read = reader.read_as(NODE_METHODS[node], parse_text(f"(g {text})").forms[0].items[1], Scope())
    assert type(read) is node


@pytest.fixture
def sandbox():
    """The registry's module state, restored after the test (which registers a form)."""
    saved = (list(forms_module._FORMS), dict(forms_module._BY_KEY), list(forms_module._SEALED))
    yield
    forms_module._FORMS[:], forms_module._SEALED[:] = saved[0], saved[2]
    forms_module._BY_KEY.clear()
    forms_module._BY_KEY.update(saved[1])


def test_a_form_s_tuple_of_nodes_may_not_hold_another_form_s_node(sandbox):
    Halve = form_node("Halve", "n", Kind.INT, "halve", "(halve N).")

    class Bad(FlowCompiler):
        @form("halve", "(halve N)", Kind.INT, node=(Halve, A.SwapCards))
        def int_halve(self, x, scope):
            """(halve N)

            Half of N."""

    with pytest.raises(FormError, match="its node class SwapCards stands for another form"):
        seal(Bad)
