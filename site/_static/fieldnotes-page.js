/* Small fixes to every page.
   - Generated tables on a phone: each row is shown as a card (fieldnotes.css); every cell is labelled with
     its column's header so a card reads "claim: 02-C3", "statement: …".
   - Figures: each output image links to its full-size file (a wide figure is small on a phone).
   - The page's contents (right sidebar): the entry of the section being read is marked on every scroll (the
     theme's IntersectionObserver misses headings that a fast scroll or a jump carries past its band, and
     then stays on an old entry), and the contents scroll to keep that entry in view on long pages.
   - Sidebar toggles: the theme binds its handler to the first `.primary-toggle` / `.secondary-toggle` in
     the page, a hidden one (pydata-sphinx-theme#2451), so the visible buttons did nothing; they forward
     their click to it.
   - Search highlights: Sphinx marks a highlight word wherever its letters occur, inside longer words too
     ("time" in every "RuntimeError", "mode" in every "model"). A mark stays where the word starts (after
     a non-letter, or at the capital of a CamelCase part, such as "Loader" in DataLoader) and ends, or goes
     on with a common ending (hooks, trained, loading); the others are taken back. Chinese has no word
     edges: its marks stay as Sphinx made them. */
(() => {
  const forward = () =>
    [".primary-toggle", ".secondary-toggle"].forEach((sel) => {
      const bound = document.querySelector(sel);
      document.querySelectorAll(sel).forEach((button) => {
        if (button === bound || !bound) return;
        button.addEventListener("click", (event) => {
          event.preventDefault();
          event.stopPropagation();
          bound.click();
        });
      });
    });
  const label = () =>
    document.querySelectorAll("table.fn-table").forEach((table) => {
      const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      table.querySelectorAll("tbody tr").forEach((tr) =>
        [...tr.children].forEach((td, i) => names[i] && td.setAttribute("data-label", names[i]))
      );
    });
  const enlarge = () =>
    document.querySelectorAll("div.cell_output img").forEach((img) => {
      if (img.closest("a")) return;
      const link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "fn-full-size";
      link.title = "open the figure full size";
      img.replaceWith(link);
      link.appendChild(img);
    });
  const spy = () => {
    const nav = document.querySelector("#pst-page-toc-nav");
    const box = document.querySelector(".bd-sidebar-secondary");
    if (!nav || !box) return;
    const links = [...nav.querySelectorAll("a.nav-link")].filter((a) => a.hash.length > 1);
    const targets = links.map((a) => {
      const el = document.getElementById(decodeURIComponent(a.hash.slice(1)));
      return el && (el.matches("section") ? el.querySelector("h1, h2, h3, h4, h5, h6") || el : el);
    });
    let shown = null;
    const mark = () => {
      const line = window.innerHeight * 0.3;
      let current = -1;
      targets.forEach((t, i) => {
        if (t && t.getBoundingClientRect().top <= line) current = i;
      });
      const link = links[Math.max(current, 0)];
      if (!link) return;
      const moved = link !== shown;
      shown = link;
      if (!moved && nav.querySelectorAll("a.active").length === 1 && link.classList.contains("active")) return;
      links.forEach((a) => {
        a.classList.toggle("active", a === link);
        if (a === link) a.setAttribute("aria-current", "true");
        else a.removeAttribute("aria-current");
      });
      nav.querySelectorAll(".toc-entry").forEach((li) => li.classList.toggle("active", li.contains(link)));
      const r = link.getBoundingClientRect(), b = box.getBoundingClientRect();
      if (moved && (r.top < b.top || r.bottom > b.bottom)) box.scrollTop += r.top - b.top - b.height / 3;
    };
    let queued = false;
    window.addEventListener("scroll", () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        mark();
      });
    }, { passive: true });
    mark();
  };
  const LETTER = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Nd}]/u;
  const ENDINGS = new Set(["", "s", "es", "ed", "d", "ing", "er", "ers", "ly"]);
  const wholeWords = () => {
    document.querySelectorAll("span.highlighted").forEach((span) => {
      const text = span.textContent;
      if (!LETTER.test(text)) return; // a Chinese term
      const side = (node) => (node && node.nodeType === Node.TEXT_NODE ? node.nodeValue : "");
      const before = side(span.previousSibling).slice(-1);
      const after = side(span.nextSibling);
      const starts = !LETTER.test(before) || (/\p{Lu}/u.test(text[0]) && /\p{Ll}/u.test(before));
      // what follows in lower case (a capital after it starts the next CamelCase part)
      const ending = after.match(/^[\p{Ll}\p{Nd}]*/u)[0];
      if (starts && ENDINGS.has(ending)) return;
      const parent = span.parentNode;
      span.replaceWith(document.createTextNode(text));
      parent.normalize();
    });
    document.documentElement.dataset.fnMarks = "whole words"; // done (the browser tests wait for it)
  };
  // sphinx_highlight.js marks the words 10 ms after the DOMContentLoaded that follows this deferred
  // script; a timer of the same delay set after its own runs after it.
  if (typeof SphinxHighlight !== "undefined") {
    const mark = SphinxHighlight.highlightSearchWords;
    SphinxHighlight.highlightSearchWords = () => {
      mark();
      window.setTimeout(wholeWords, 10);
    };
  }
  const start = () => {
    label();
    enlarge();
    forward();
    spy();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
