"""Serve the built site on loopback and drive Debian's Chromium with Playwright.

Shared by the browser tests and tools/screenshots.py. Never downloads a browser:
it uses /usr/bin/chromium (or $CHROMIUM).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

# Flags that keep Chromium from calling home (the machine has no network but the registries).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
]


def chromium_path() -> str | None:
    """Path of a system Chromium, or None."""
    candidate = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    return candidate if candidate and os.access(candidate, os.X_OK) else None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port); yields the base URL."""
    if not Path(directory, "index.html").is_file():
        raise FileNotFoundError(f"{directory}/index.html not found: build the site first (make site)")
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def launch(playwright):  # noqa: ANN001, ANN201 - playwright types are optional imports
    path = chromium_path()
    if path is None:
        raise FileNotFoundError("no chromium found (install Debian's chromium, or set $CHROMIUM)")
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
