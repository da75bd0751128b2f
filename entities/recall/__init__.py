"""Recall for agents: the six retrieval triggers, episodes of past work, scopes."""
