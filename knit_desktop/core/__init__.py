"""Pure-Python engine of Knit Desktop. Nothing in this package may import Qt (a test enforces it)."""
