"""A workspace's documents on disk and in the index: which files may be read (the boundary), what is extracted from
each format, the walk, the in-memory inverted index, citations between documents, and the SQLite store that keeps it
all between runs. Preview content is read here too, because it reads the same files under the same rules.
"""
