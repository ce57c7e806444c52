"""The turns of a traced game (``analyze``'s ``turns``): how many passes each running
``(stage player ...)`` made, by nesting depth, seen at the decisions only (``TurnCounter``;
recycle/study/analysis.py and trace_native.py feed it)."""

from __future__ import annotations

from .trace_native import game_shape


class TurnCounter:
    """Counts the passes (turns) of every running ``stage player``, by nesting depth.

    Seen only at decisions: a new pass of the stage at depth d starts when that stage is
    entered anew, when its current player changes, or when a stage nested in it is
    entered a second time (the same stage form, found by source position), which is how
    a trick winner who leads again is told apart from the same trick.
    """

    def __init__(self, game):
        self.turns: list[int] = []
        self._entry: list = []
        self._player: list = []
        self._nested: list[set] = []
        self._stages = _player_stages(game)
        self._chains: dict = {}

    def _chain(self, option) -> tuple:
        item = option[0][0] if option else None
        chain = self._chains.get(item)
        if chain is None:
            span = getattr(getattr(item, "node", None), "span", None)
            chain = ()
            if span is not None:
                at = (span.line, span.column)
                chain = tuple(k for k, (start, end) in enumerate(self._stages) if start <= at <= end)
            self._chains[item] = chain
        return chain

    def see(self, stack, option) -> None:
        """A decision: ``stack`` the live state's stage stack, ``option`` the chosen option's steps."""
        self._see(stack, self._chain(option))

    def see_at(self, stack, at: tuple) -> None:
        """``see`` with the chosen option's place in the text given as its choice's (line, column)
        (a natively traced game's: recycle/study/trace_native.py)."""
        chain = self._chains.get(at)
        if chain is None:
            chain = self._chains[at] = tuple(k for k, (start, end) in enumerate(self._stages) if start <= at <= end)
        self._see(stack, chain)

    def _see(self, stack, chain) -> None:
        if len(chain) != len(stack) - 1:
            chain = (None,) * (len(stack) - 1)  # a team stage or an unknown form: no nesting check
        fresh = [False] * (len(stack) - 1)
        for j in range(len(stack) - 1):
            entry = stack[j + 1]
            if j >= len(self.turns):
                self.turns.append(0)
                self._entry.append(None)
                self._player.append(None)
                self._nested.append(set())
            if self._entry[j] is not entry:
                self._new_pass(j, entry, fresh)
                if j > 0 and chain[j] is not None:
                    seen = self._nested[j - 1]
                    if chain[j] in seen and not fresh[j - 1]:
                        self.turns[j - 1] += 1  # the parent's body runs again: a new pass
                        fresh[j - 1] = True
                        seen.clear()
                    seen.add(chain[j])
            elif self._player[j] != entry[0]:
                self._new_pass(j, entry, fresh)

    def _new_pass(self, j, entry, fresh) -> None:
        self.turns[j] += 1
        self._entry[j] = entry
        self._player[j] = entry[0]
        self._nested[j] = set()
        fresh[j] = True


def _player_stages(game) -> list[tuple]:
    """(start, end) source positions of every ``(stage player ...)`` form, in source order."""
    return game_shape(game)[2]
