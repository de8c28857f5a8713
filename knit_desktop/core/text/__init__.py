"""Text as both sides of a search see it: character classes and tokenisers, stop lists, relative-time codes.

The lowest layer of `core`: it imports nothing else from Knit.
"""
