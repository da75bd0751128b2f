"""Semantic search: embedders, persistent hnswlib indexes per kind, entity-aware ranking.

Import the public functions from ``entities.search.service`` (indexing, similarity) and
``entities.search.ranking`` (``search_by_entities``, ``fact_search``); heavy libraries
load lazily on first use.
"""
