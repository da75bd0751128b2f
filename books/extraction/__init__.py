"""Entity extraction from chunks: structural rules here, models elsewhere."""
