"""The agent tools (`knit_docs`, `memory_search`, `memory_propose`), independent of the MCP protocol that carries
them: what they promise (specs), how a call finds its DSH session and workspace, and what they answer.
"""
