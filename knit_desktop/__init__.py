"""Knit Desktop: documents ranked by what your DSH conversation is about right now."""

__version__ = "0.1.0"
