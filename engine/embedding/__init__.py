"""Embeddings every stage shares: the one-method embedder, the vector cache, and keeping the
store's embeddings in step with the texts (cache.py)."""
