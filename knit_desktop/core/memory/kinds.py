"""The kinds of memory entry an agent may propose: constants only, so the command-line grammar and the tool
descriptions name them without importing the proposal queue (and its dataclasses, locks and dates)."""

KINDS = ("preference", "project", "environment", "fact", "todo", "note")
