"""How a form kept whole in its module offers options inside a choice, in the native engine.

A choice's native writer lists the options of its items as the reference interpreter's
``expand`` and ``compose`` do (``items.py``); how each form takes part is an *offer*
(``recycle/native/forms_options.py``: ``static``, ``single``, ``options``, ``raw_count``,
``raw_walk``, ``offer_keys``, ``key_steps`` ...). A form's module writes its offer beside its
native writer, as a class registered here with ``native_offer(NodeClass)``: a mixin of the
native engine's ``Forming`` (a form that is not one fixed option; ``forming=False``: of
``Offer``, an action's), which the native engine composes when it is imported and which
reaches the option machinery through ``self`` (``self.offer_of``, ``self.list_options`` ...:
``OptionTools`` there), since a module of lang may not import the native engine.
"""

from __future__ import annotations

# the offers written beside their forms: the class of a form's node -> (its offer's mixin,
# whether it is a mixin of ``Forming`` rather than of ``Offer``)
NATIVE_OFFERS: dict[type, tuple[type, bool]] = {}


def native_offer(*classes: type, forming: bool = True):
    """Register the class decorated as how the nodes of ``classes`` offer options natively."""

    def register(cls: type) -> type:
        for node_class in classes:
            if node_class in NATIVE_OFFERS:
                raise ValueError(f"two native offers for {node_class.__name__}")
            NATIVE_OFFERS[node_class] = (cls, forming)
        return cls

    return register
