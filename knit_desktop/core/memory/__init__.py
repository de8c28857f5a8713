"""Memory: the live index over Markdown memory files, retrieval, proposals and confirmed writes."""
