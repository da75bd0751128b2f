"""The Model Context Protocol face of the memory: ``manage.py mcp_serve``."""
