"""The ``recycle`` command line: a thin Typer layer over the Python API."""

from .main import app, main

__all__ = ["app", "main"]
