"""A game read once into frozen, positioned, typed nodes (issue 41): ``elaborate`` turns the
reader's s-expression into a ``GameNode``; ``base`` holds the shared nodes and each family
module the nodes of its forms with their reading."""

from .flow import Elaborator, GameNode, elaborate

__all__ = ["Elaborator", "GameNode", "elaborate"]
