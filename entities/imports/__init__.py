"""Imports of other memories into the entity graph."""
