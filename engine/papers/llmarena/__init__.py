"""LLMArena (Chen et al.): its suite, normalized scores, analyses and published table."""
