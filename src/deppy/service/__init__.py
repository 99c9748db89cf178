"""The interactive front door: an HTTP API (FastAPI) and the web UI served with it.

Thin: every answer comes from ``workflows`` and ``resolution``, the same as the CLI's. May import
everything below the front doors; never ``cli`` or ``controller``.
"""
