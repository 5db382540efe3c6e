"""Serve the built site on loopback and drive Debian's Chromium with Playwright.

Shared by the browser tests and fieldnotes_site.screenshots. Never downloads a browser:
it uses Debian's chromium-headless-shell or chromium (or $CHROMIUM).
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


#: Looked up on PATH in this order when $CHROMIUM is unset. The headless-only build first: it is the one
#: Playwright itself runs headless, and the browser tests (2 cores) took 63-66 CPU-seconds with it against
#: 76-84 with the full chromium, and 50 s of wall time against 55-60 (three runs each, taking turns).
CHROMIUM_NAMES = ("chromium-headless-shell", "chromium", "chromium-browser")


def chromium_path() -> str | None:
    """Path of a system Chromium ($CHROMIUM, else the first of CHROMIUM_NAMES on PATH), or None."""
    candidate = os.environ.get("CHROMIUM") or next(filter(None, map(shutil.which, CHROMIUM_NAMES)), None)
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


def no_chromium() -> str:
    """Why :func:`chromium_path` found none, and what to do."""
    what = "$CHROMIUM is not a program" if os.environ.get("CHROMIUM") else "no chromium found"
    return f"{what} (apt-get install chromium-headless-shell or chromium, or set $CHROMIUM)"


def launch(playwright, extra_args: list[str] | None = None):  # noqa: ANN001, ANN201 - optional imports
    """Chromium through Playwright, with CHROMIUM_ARGS and then ``extra_args``."""
    path = chromium_path()
    if path is None:
        raise FileNotFoundError(no_chromium())
    return playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS + list(extra_args or []))


#: What a reader sees of a notebook page (DESIGN.md, "Notebook anatomy"), measured in the page itself.
#: A code line is visible when its cell input is rendered and not inside a closed <details> (a folded
#: check). A line is claim-check code when its cell is a check cell (tag ``check``) or, in any other
#: cell, when it belongs to a ``claim``/``claim_close``/``claim_raises``/``skip`` call.
ANATOMY_JS = r"""
() => {
  const shown = el => {
    if (!el.getClientRects().length) return false;
    for (let e = el.parentElement; e; e = e.parentElement)
      if (e.tagName === 'DETAILS' && !e.open && !el.closest('summary')) return false;
    return true;
  };
  const main = document.querySelector('article.bd-article') || document.querySelector('main');
  const heads = [...main.querySelectorAll('h2, h3')];
  const first = heads.find(h => /^\s*1[\s.]/.test(h.textContent)) || heads[0];
  const top = first ? first.getBoundingClientRect().top + window.scrollY : null;
  const CALL = /\b(claim|claim_close|claim_raises|skip)\(/;
  let lines = 0, wide = 0, check = 0, longest = 0;
  for (const cell of main.querySelectorAll('div.cell')) {
    const pre = cell.querySelector('div.cell_input pre');
    if (!pre || !shown(pre)) continue;
    const folded = cell.classList.contains('tag_check');
    let depth = 0;
    for (const line of pre.textContent.replace(/\n$/, '').split('\n')) {
      lines += 1;
      if (line.length > 88) wide += 1;
      longest = Math.max(longest, line.length);
      const code = line.replace(/(["'])(?:\\.|(?!\1).)*\1/g, '""').replace(/#.*$/, '');
      const inCall = depth > 0 || CALL.test(code);
      if (folded || inCall) check += 1;
      if (inCall) depth = Math.max(0, depth + (code.match(/[(\[{]/g) || []).length
                                            - (code.match(/[)\]}]/g) || []).length);
    }
  }
  let columnChars = null;
  const pre = [...main.querySelectorAll('div.cell_input pre')].find(shown);
  if (pre) {
    const probe = document.createElement('span');
    probe.textContent = 'x'.repeat(100);
    pre.appendChild(probe);
    const cs = getComputedStyle(pre);
    const inner = pre.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    columnChars = Math.floor(inner / (probe.getBoundingClientRect().width / 100));
    probe.remove();
  }
  const idHeads = heads.filter(h => /\bC\d+\b/.test(h.textContent)).length;
  return {first_section_screens: top === null ? null : top / window.innerHeight,
          visible_code_lines: lines, visible_lines_over_88: wide, longest_visible_line: longest,
          visible_check_lines: check, claim_id_headings: idHeads, code_column_chars: columnChars,
          first_heading: first ? first.textContent.trim().slice(0, 60) : null};
}
"""


#: Words broken across lines in a page's tables and headings: a run of letters or digits whose text wraps
#: onto two lines (breaks at spaces, dots, slashes, underscores or hyphens between such runs are fine).
MIDWORD_JS = r"""
() => {
  const broken = [];
  for (const table of document.querySelectorAll('article table, article :is(h1, h2, h3, h4)')) {
    const walker = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[A-Za-z0-9]{2,}/g)) {
        const r = document.createRange();
        r.setStart(node, m.index);
        r.setEnd(node, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
}
"""


def midword_breaks(page) -> list[str]:  # noqa: ANN001 - a playwright page
    """The words of the loaded page's tables and headings that wrap mid-word (see :data:`MIDWORD_JS`)."""
    return page.evaluate(MIDWORD_JS)
