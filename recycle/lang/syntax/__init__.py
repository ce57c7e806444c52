"""Syntax: a game's text read into positioned forms (``reader``, by ``grammar.lark``), and its
structured ``;@`` comments (``notes``). Nothing here knows what a form means."""
