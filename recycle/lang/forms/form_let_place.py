"""The form ``(let VALUE 'VARIABLE LOCATION)``: a location or view computed with a value bound
to a variable (the lets of other kinds are their families').

The form is kept whole in this one module, registered together as it is imported
(``flow.py`` imports every ``form_*.py``): its reading of the s-expression
(``read_let_place``), its meaning in the reference interpreter (``LetPlaceForms.loc_let``,
over the compiler's ``c_let_value`` every let shares) and its facts (the ``@form`` record).
It has no native writer: the native engine leaves a game using it to the reference
interpreter. Its node (``LetPlace``) is of the node vocabulary of ``lang/nodes/places.py``.
"""

from __future__ import annotations

from collections.abc import Callable

from ..nodes.places import LetPlace
from ..nodes.sexpr import Scope
from ..syntax.reader import SList
from .registry import Kind, family, form


def read_let_place(e, x: SList, scope: Scope) -> LetPlace:
    """The node of ``(let VALUE 'VARIABLE LOCATION)``, read by the elaborator ``e``."""
    return LetPlace(*e.let_value(x, scope, e.cards), span=x.span, source=x)


@family
class LetPlaceForms:
    """``(let VALUE 'VARIABLE LOCATION)`` in the reference interpreter (a mixin of
    ``FlowCompiler``)."""

    @form(
        "let",
        "(let VALUE 'VARIABLE LOCATION)",
        Kind.LOC,
        pure=True,
        binds=True,
        node=LetPlace,
        reads=read_let_place,
    )
    def loc_let(self, x: LetPlace, scope: Scope) -> Callable:
        """(let VALUE 'VARIABLE LOCATION)

        The location or view, computed with VALUE (evaluated once) bound to 'VARIABLE."""
        return self.c_let_value(x, scope, self.c_cards)
