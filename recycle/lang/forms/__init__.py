"""Forms: what each form of the language means. The registry (``registry``) and the
compilers of the forms into closures over a state (``expr_*``, ``actions*``, ``flow``, with
``items``, ``shapes``, ``costs`` and ``recovery``), the values and layout they work
on, and the card table (``card_table``): all a compiled game reads of the game that holds it."""
