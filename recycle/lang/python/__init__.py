"""The compiled engine: a game's flow and expressions, compiled by ``forms``, written out as
Python source (``pygen``, ``pyexpr``, ``pycards``; outside text enters it by ``pytext``) and
its bytecode cached on disk (``codecache``)."""
