"""The language: text → positioned syntax tree → closures (grammar, syntax, forms, compiler)."""
