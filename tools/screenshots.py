"""Screenshots of the built site for the README: figures/site_landing.png, figures/site_notebook.png.

Run after `make site` (needs Debian's chromium): python tools/screenshots.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.browser import launch, serve  # noqa: E402

SHOTS = {
    "site_landing.png": "index.html",
    "site_notebook.png": "notebooks/01_tensors.html#memory-layout-strides-view-reshape",
}


def main() -> int:
    from playwright.sync_api import sync_playwright

    with serve(ROOT / "_build" / "html") as base, sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        for name, rel in SHOTS.items():
            page.goto(base + rel, wait_until="networkidle")
            page.wait_for_timeout(300)
            page.screenshot(path=str(ROOT / "figures" / name))
            print("wrote", f"figures/{name}")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
