"""DeepSeek Harness as Knit reads it, read-only: session logs (zstd frames), the session catalogue, the conversation
window the ranker uses, which session made an agent call, and what a session did with the context it was given.
"""
