"""The vectors room: the embedder, persistent hnswlib indexes per kind, their journal and
rebuilds. It imports no app: apps register their kinds (``register_kind``) from
``ready()``, supplying texts to embed or vectors computed elsewhere.

Import the public functions from ``kgsite.vectors.service`` (indexing, similarity, the
queue) and ``kgsite.vectors.index`` (``register_kind``, ``VectorKind``); heavy libraries
(sentence-transformers, torch, hnswlib) load lazily on first use.
"""
