"""The flow's forms (conditional, do, any, all, let, choice, stage) each kept whole in one
module of ``recycle/lang/forms`` (issue 41, requirement 4): its reading, compile method, native
writer and native offer registered together, none left in the elaborator, the compiler's
explicit bases or the native engine's modules."""

from __future__ import annotations

import inspect

import pytest

from recycle.lang.forms.flow import REGISTRY, FlowCompiler
from recycle.lang.forms.offers import NATIVE_OFFERS
from recycle.lang.forms.reads import NODE_METHODS
from recycle.lang.forms.writers import NATIVE_WRITERS
from recycle.lang.nodes.base import Kind
from recycle.lang.nodes.flow import Choice, Do, Elaborator, Let, Loop, Offer, Stage, When

FLOW_FORMS = {
    When: "form_blocks",
    Do: "form_blocks",
    Offer: "form_loops",
    Loop: "form_loops",
    Let: "form_loops",
    Choice: "form_choice",
    Stage: "form_stage",
}


@pytest.mark.parametrize("node", list(FLOW_FORMS), ids=lambda c: c.__name__)
def test_a_flow_form_is_read_compiled_and_written_in_its_own_module(node):
    module = f"recycle.lang.forms.{FLOW_FORMS[node]}"
    method = REGISTRY.node_methods[node]
    assert NODE_METHODS[node] == method
    assert getattr(FlowCompiler, method).__module__ == module
    assert REGISTRY.readings[method].__module__ == module
    assert not hasattr(Elaborator, "e_" + method)  # the reading is the form's, not the elaborator's
    assert NATIVE_WRITERS[(Kind.FLOW, node)].__module__ == module


def test_the_native_offers_of_the_flow_are_their_forms():
    """A block's offer is the native engine's compose (forms_blocks.py); every other flow form
    that stands in a choice says how it offers options beside its writer."""
    assert {c: m.__module__ for c, (m, _forming) in NATIVE_OFFERS.items() if c in FLOW_FORMS} == {
        When: "recycle.lang.forms.form_blocks",
        Offer: "recycle.lang.forms.form_loops",
        Loop: "recycle.lang.forms.form_loops",
        Let: "recycle.lang.forms.form_loops",
    }


def test_the_native_engine_composes_the_offers_written_beside_their_forms():
    pytest.importorskip("numpy", reason="the native extra is not installed")
    from recycle.native import forms_options as fo
    from recycle.lang.forms.form_loops import AnyOffer

    got = fo.OFFERS[Offer]
    assert isinstance(got, AnyOffer) and isinstance(got, fo.Forming)
    assert inspect.getattr_static(got, "options") is vars(AnyOffer)["options"]


def test_an_offer_that_hides_an_option_tool_is_refused():
    pytest.importorskip("numpy", reason="the native extra is not installed")
    from recycle.native import forms_options as fo

    class Hiding:
        def draws(self, x):
            return False

    with pytest.raises(ValueError, match="the native offer Hiding hides the option tools draws"):
        fo.composed_offer(Hiding, True)
