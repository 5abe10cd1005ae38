"""The browser client: static files (plain ES modules, CSS, HTML) served by the server.

The client has no build step; the server serves :data:`STATIC_DIR` at ``/static/``
and ``index.html`` at ``/``.

>>> (STATIC_DIR / "index.html").is_file()
True
"""

from __future__ import annotations

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"
"""Folder of the client files shipped inside the package."""

INDEX_HTML = STATIC_DIR / "index.html"
"""The page served at ``/``."""

__all__ = ["INDEX_HTML", "STATIC_DIR"]
