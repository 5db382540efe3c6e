"""Screenshots of the built site for the README: the landing page, a notebook page and the claim ledger's
version grid (figures/site_*.png), taken from the current build.

`make screenshots` builds the site first (needs Debian's chromium-headless-shell or chromium).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from .browser import launch, serve  # noqa: E402

SHOTS = {
    "site_landing.png": "index.html",
    "site_notebook.png": "notebooks/01_tensors.html#memory-layout-strides-view-reshape",
    "site_versions.png": "claims.html#claims-10",
}
#: Scroll this cell's text to the top before the shot (the grid rows where old releases fail).
SCROLL_TO = {"site_versions.png": "10-C4"}


def main() -> int:
    from playwright.sync_api import sync_playwright

    with serve(ROOT / "_build" / "html") as base, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        for name, rel in SHOTS.items():
            page.goto(base + rel, wait_until="networkidle")
            if name in SCROLL_TO:
                page.get_by_text(SCROLL_TO[name], exact=True).first.evaluate("e => e.scrollIntoView()")
            page.wait_for_timeout(300)
            page.screenshot(path=str(ROOT / "figures" / name))
            print("wrote", f"figures/{name}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
