"""The writer's tools for the flow's native writers (``recycle/lang/forms/form_blocks.py``,
``form_loops.py``, ``form_choice.py``, ``form_stage.py``): a form's module in ``lang`` may not
import the native engine, so what its writer needs of it is a method of the ``Writer`` it is
handed, each delegating to the native helper that does it (a mixin of ``Writer``).
"""

from __future__ import annotations

from . import loops, forms_options


class FlowWriterTools:
    """Loops, runs of items and a choice's options, for the flow's writers (``w``)."""

    def sequence(self, nodes, sc) -> None:
        """Write the items ``nodes`` one after another (``loops.sequence``)."""
        loops.sequence(self, nodes, sc)

    def collection(self, coll, sc, var: str, in_place: bool = False) -> loops.Loop:
        """The loop over a snapshot of the collection ``coll``, binding ``var`` to each element
        (``loops.collection``)."""
        return loops.collection(self, coll, sc, var, in_place)

    def open_loop(self, loop: loops.Loop) -> None:
        """Emit a loop's snapshot and header and bind its element (``loops.open_loop``);
        the caller resets the depth."""
        loops.open_loop(self, loop)

    def write_options(self, x, sc, counting: bool) -> None:
        """Count the options the item ``x`` of a choice offers (``n``), or run the ``k``-th
        (``forms_options.options``)."""
        forms_options.options(self, x, sc, counting)

    def write_option_keys(self, x, sc) -> None:
        """Write the key of each option the item ``x`` of a choice offers, for a look-ahead
        search (``forms_options.offer_keys``)."""
        forms_options.offer_keys(self, x, sc)

    def decline_keys(self) -> None:
        """Write the search's declining: the options' keys are not written natively."""
        forms_options.decline_keys(self)
