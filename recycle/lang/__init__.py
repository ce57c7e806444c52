"""The language, in rooms that follow the phases of reading a game (tests/test_layers.py
holds each room to the rooms before it):

* ``syntax``: text → positioned forms (the grammar, the reader) and the ``;@`` notes;
* ``forms``: the registry of forms and their compilers into closures (``flow.FlowCompiler``),
  with the values, layout and card table those closures work on;
* ``python``: the compiled engine, the closures' flow written out as Python source;
* ``reading``: what is worked out from a game's text without playing it (``recycle check``'s
  warnings, the counts of players a deal serves) and its variants (other counts of players,
  other constants).

``python`` and ``reading`` both come after ``forms`` and neither imports the other.
"""
