"""What a generated native module calls to be stepped from outside (recycle/native/stepping.py):
two functions of the C harness (recycle/native/c/harness.py), not of the typed Python subset.

A stepped game runs on a C stack of its own; at each choice it stops (``suspend``: the
harness switches back to the caller, which lists the options, clones the state or picks one)
and goes on with the option the caller applied."""

from __future__ import annotations


class CFunction:
    """A function of the C harness the translator calls by its C name (``c_function``); in
    Python (never stepped) it returns ``fallback``."""

    def __init__(self, c_function: str, fallback: int):
        self.c_function = c_function
        self.fallback = fallback
        self.__name__ = c_function

    def __call__(self, *args):
        return self.fallback


# 1 when the game being started is stepped from outside (set once by ``begin``'s caller)
stepping_wanted = CFunction("rc_stepping_wanted", 0)
# stop at a choice of ``n`` options until the caller applies one; returns its index
suspend = CFunction("rc_suspend", 0)
# ... saying which choice it is (its number in the module's CHOICE_SITES: writer.choose_line)
suspend_at = CFunction("rc_suspend_at", 0)
# a search from a blind start (recycle/native/blind_search.py): copy the stopped game's block in
# (1), then resume it with an option, running to its end (1) or to another stop (0)
block_load = CFunction("rc_block_load", 0)
block_resume = CFunction("rc_block_resume", 1)
