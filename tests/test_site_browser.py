"""The built site in a real browser (Debian chromium driven by Playwright).

Skipped, with the reason, when no chromium is installed (.ci/run installs it).
The site is built once per session into _build/html (ignored by git).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import pytest

from tools.browser import chromium_path, launch, serve
from tools.notebooks import claim_cells, ledger, load_records, notebook_paths, read, skipped

pytestmark = pytest.mark.browser
if chromium_path() is None:
    pytest.skip(
        "browser tests skipped: no chromium found (apt-get install chromium, or set $CHROMIUM)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: playwright not installed"
)

from tools.build_site import HTML, build, version_branches  # noqa: E402

LOCAL_SCHEMES = {"data", "blob", "about", "file"}


@pytest.fixture(scope="module")
def site() -> Path:
    assert build(strict=True) == 0, "site build failed"
    return HTML


@pytest.fixture(scope="module")
def base_url(site):
    with serve(site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


class Visit:
    """One page load with every request, failure and console error recorded; off-host requests are aborted."""

    def __init__(self, browser, url: str, wait: str = "networkidle"):
        self.offhost: list[str] = []
        self.failed: list[str] = []
        self.console: list[str] = []
        self.page = browser.new_page()
        host = urlparse(url).netloc

        def route(r):
            u = urlparse(r.request.url)
            if u.scheme in LOCAL_SCHEMES or u.netloc == host:
                r.continue_()
            else:
                self.offhost.append(r.request.url)
                r.abort()

        self.page.route("**/*", route)
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on(
            "response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} (HTTP {r.status})")
        )
        self.page.on("console", lambda m: m.type == "error" and self.console.append(m.text))
        self.page.on("pageerror", lambda e: self.console.append(str(e)))
        self.page.goto(url, wait_until=wait)

    def check_clean(self, what: str) -> None:
        assert not self.offhost, f"{what}: requests to other hosts: {self.offhost}"
        assert not self.failed, f"{what}: failed requests: {self.failed}"
        assert not self.console, f"{what}: console errors: {self.console}"

    def close(self) -> None:
        self.page.close()


def html_pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html") if "_static" not in p.parts)


def test_every_page_loads_cleanly_with_images(site, base_url, browser):
    pages = html_pages(site)
    assert "index.html" in pages and len(pages) >= 6
    for rel in pages:
        v = Visit(browser, base_url + rel)
        try:
            v.check_clean(rel)
            broken = v.page.eval_on_selector_all(
                "img", "imgs => imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
            )
            assert not broken, f"{rel}: images that did not load: {broken}"
        finally:
            v.close()


def test_notebook_pages_show_outputs_figures_and_stamp(site, base_url, browser):
    for path in notebook_paths():
        stored_images = sum(
            1
            for cell in read(path).cells
            for out in cell.get("outputs", [])
            if "image/png" in out.get("data", {})
        )
        v = Visit(browser, f"{base_url}notebooks/{path.stem}.html")
        try:
            text = v.page.inner_text("main")
            assert "✔ C1 " in text, f"{path.stem}: stored outputs (ledger lines) missing"
            assert "last verified" in text and "Download" in text
            shown = v.page.locator("main img").count()
            assert shown >= stored_images, (
                f"{path.stem}: {stored_images} stored figures, {shown} images on the page"
            )
        finally:
            v.close()


def test_math_renders_offline(base_url, browser):
    v = Visit(browser, base_url + "notebooks/01_tensors.html")
    try:
        v.page.wait_for_selector("mjx-container", timeout=15000)
        assert v.page.locator("mjx-container").count() >= 3
        v.check_clean("math page")
    finally:
        v.close()


@pytest.mark.parametrize(
    "term, expected",
    [
        ("contiguous", "01_tensors"),
        ("PYTHONHASHSEED", "00_environment"),
        ("随机种子", "glossary"),
        ("连续", "01_tensors"),
    ],
)
def test_search_finds_english_and_chinese(base_url, browser, term, expected):
    v = Visit(browser, f"{base_url}search.html?q={term}")
    try:
        v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
        hrefs = v.page.eval_on_selector_all("#search-results ul.search li a", "as => as.map(a => a.href)")
        assert any(expected in h for h in hrefs), f"search {term!r}: {hrefs}"
        v.check_clean(f"search {term}")
    finally:
        v.close()


def test_error_index_links_reach_their_reproduction(base_url, browser):
    v = Visit(browser, base_url + "errors.html")
    links = v.page.eval_on_selector_all("main table a.reference", "as => as.map(a => a.href)")
    v.close()
    assert len(links) >= 5, f"error index too small: {links}"
    by_page: dict[str, list[str]] = {}
    for link in links:
        page_url, _, anchor = link.partition("#")
        assert anchor.startswith("error-"), link
        by_page.setdefault(page_url, []).append(anchor)
    for page_url, anchors in by_page.items():  # one load per page, every anchor checked on it
        w = Visit(browser, page_url, wait="domcontentloaded")
        try:
            missing = [a for a in anchors if w.page.locator(f"[id='{a}']").count() != 1]
            assert not missing, f"anchors {missing} missing on {page_url}"
        finally:
            w.close()


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])


def test_internal_links_resolve(site):
    parsed = {}
    for rel in html_pages(site):
        p = _Links()
        p.feed((site / rel).read_text(encoding="utf-8"))
        parsed[rel] = p
    bad = []
    for rel, p in parsed.items():
        for href in p.hrefs:
            u = urlparse(href)
            if u.scheme or href.startswith("//") or href.startswith("mailto:"):
                continue
            target = urljoin(rel, unquote(u.path)) if u.path else rel
            if not (site / target).exists():
                bad.append(f"{rel} -> {href}")
            elif (
                u.fragment
                and target.endswith(".html")
                and target in parsed
                and u.fragment not in parsed[target].ids
            ):
                bad.append(f"{rel} -> {href} (no such anchor)")
    assert not bad, "broken internal links:\n" + "\n".join(bad[:20])


def test_works_from_a_usb_stick(site, browser):
    """file:// with no server: pages, styles and search still load, nothing leaves the machine."""
    v = Visit(browser, (site / "index.html").as_uri(), wait="load")
    try:
        v.check_clean("file:// index")
        assert "PyTorch Field Notes" in v.page.title()
    finally:
        v.close()


def test_ledger_page_counts_every_stored_ledger_line(site):
    stored = sum(len(ledger(read(p))) for p in notebook_paths())
    text = (site / "claims.html").read_text(encoding="utf-8")
    assert f"{stored} verified claims" in text
    assert len(re.findall(r"<td><p>\d\d-C\d+</p></td>", text)) >= stored


def test_version_grid_what_changed_and_holds_on(site, base_url, browser):
    """One visible grid cell per recorded torch version and claim, with the version as its tooltip; the
    what-changed page lists every claim whose check branches on the version; each notebook says where it
    holds."""
    records = [r for r in load_records() if not r.is_gpu]
    if not records:
        pytest.skip("no verification records (make matrix)")
    n_claims = sum(len(ledger(read(p))) + len(skipped(read(p))) for p in notebook_paths())
    v = Visit(browser, base_url + "claims.html")
    try:
        v.check_clean("claims")
        cells = v.page.locator("td .fn-grid .fn-v")
        assert cells.count() == n_claims * len(records)
        box = cells.first.bounding_box()
        assert box and box["width"] > 2 and box["height"] > 5, "grid cells are not visible"
        assert cells.first.get_attribute("title").startswith(f"torch {records[0].torch}: ")
    finally:
        v.close()
    v = Visit(browser, base_url + "changes.html")
    try:
        v.check_clean("changes")
        text = v.page.inner_text("main")
        for path in notebook_paths():
            nb = read(path)
            for i in sorted(set(claim_cells(nb).values())):
                for cid, versions in version_branches(nb.cells[i].source).items():
                    ref = f"{path.name[:2]}-{cid}"
                    assert ref in text, f"{ref} (since {versions}) not listed"
                    for ver in versions:
                        assert v.page.locator(f'a[href$="/releases/tag/v{ver}.0"]').count() >= 1
    finally:
        v.close()
    page = (site / "notebooks" / f"{notebook_paths()[0].stem}.html").read_text(encoding="utf-8")
    assert "Version matrix: holds on" in page
