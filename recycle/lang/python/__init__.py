"""What is left of the retired generated-Python engine (issue 41): ``pytext`` (outside text
written into generated source only as escaped literals; the native writer uses it) and
``codecache`` (the user-only cache folder's checks and entries, which the native engine's
cache builds on). The generated-Python engine itself (pygen, pyexpr, pycards) is gone: the
reference interpreter (``recycle/lang/forms``) and the native engine play every game."""
