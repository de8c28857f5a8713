"""Ranking documents by a conversation: query keywords, BM25F over the search index, the fuzzy layer, the topic
label, matched passages and the context pack (primary / supporting / related).
"""
