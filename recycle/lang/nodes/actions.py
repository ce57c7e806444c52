"""The nodes of the actions: moving, remembering, forgetting, swapping and shuffling cards,
setting storages and point maps, the turn order, repeats and what the setup creates. Each
form's reading is kept with its meaning and native writer in its module of ``lang/forms/``
(``form_moves.py``, ``form_swap.py``, ``form_shuffle.py``, ``form_storage.py``,
``form_turn_order.py``, ``form_repeat.py``, ``form_create.py``)."""

from __future__ import annotations

from .base import Kind, form_node

Place = form_node("Place", "where location", Kind.ACTION, None, "(top|bottom|INDEX LOCATION) as a destination.")
Move = form_node("Move", "card to", Kind.ACTION, "move", "(move CARD (top|bottom|INDEX LOCATION)).")
Remember = form_node("Remember", "card to", Kind.ACTION, "remember", "(remember CARD (top|bottom|INDEX MEM)).")
Forget = form_node("Forget", "card", Kind.ACTION, "forget", "(forget CARD).")
SwapPlaces = form_node("SwapPlaces", "a b", Kind.ACTION, "swap", "(swap LOCATION LOCATION).")
SwapCards = form_node("SwapCards", "a b", Kind.ACTION, "swap", "(swap CARD CARD).")
Shuffle = form_node("Shuffle", "location", Kind.ACTION, "shuffle", "(shuffle LOCATION).")
Faro = form_node("Faro", "a b", Kind.ACTION, "shuffle", "(shuffle faro LOCATION LOCATION).")
Set = form_node("Set", "storage value", Kind.ACTION, "set", "(set STORAGE VALUE).")
Award = form_node("Award", "conditions points", Kind.ACTION, None, "((KEY : VALUE) ... POINTS) of a point map.")
SetPoints = form_node("SetPoints", "storage awards", Kind.ACTION, "set", "(set (OWNER points NAME) (AWARD ...)).")
Inc = form_node("Inc", "storage amount", Kind.ACTION, "inc", "(inc (OWNER sto NAME) AMOUNT?): amount None for 1.")
Dec = form_node("Dec", "storage amount", Kind.ACTION, "dec", "(dec (OWNER sto NAME) AMOUNT?): amount None for 1.")
Cycle = form_node("Cycle", "which who", Kind.ACTION, "cycle", "(cycle next|current WHO).")
Pass = form_node("Pass", "", Kind.ACTION, "turn", "(turn pass).")
Repeat = form_node("Repeat", "times body", Kind.ACTION, "repeat", "(repeat N ACTION).")
RepeatAll = form_node("RepeatAll", "body location", Kind.ACTION, "repeat", "(repeat all (move|forget CARD ...)).")
Deck = form_node(
    "Deck",
    "name location cards lists",
    Kind.ACTION,
    "create",
    "(create deck NAME? LOCATION (deck ...)): its cards, and the number of lists its (deck ...) is written with.",
)
# what the form's words leave out (lang/forms/wording.py): the location a (repeat all ...) empties is
# read from its body, not written, and so is a deck's count of lists; a deck named DEFAULT is a
# deck whose name is not written
RepeatAll.DERIVED = ("location",)
Deck.DERIVED = ("lists",)
Deck.DEFAULTS = {"name": "DEFAULT"}
Teams = form_node("Teams", "teams", Kind.ACTION, "create", "(create teams (P, ...) ...): TeamLists as written.")
TeamList = form_node("TeamList", "members", Kind.ACTION, None, "(P, P, ...): the player numbers of a team, as written.")
