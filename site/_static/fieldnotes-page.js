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
   - Search highlights: a link from the search page opens a page with ?highlight=words. Sphinx's
     sphinx_highlight.js marked a word's letters wherever they occur ("time" inside every RuntimeError),
     across the whole page, sidebars too, and left some occurrences dark (it walks a paragraph's parts
     with a count taken before its own marks split them: in "graph <b>x</b> graph <b>y</b> graph" the
     last stays dark). The page marks the words itself: in the article, every occurrence that is a word
     of its own (after a non-letter, or at the capital of a CamelCase part: "Loader" in DataLoader, "Loss"
     in BCELoss; not inside a snake_case name: "dropout" is not F.alpha_dropout) and ends there or goes on
     with a common ending (hooks, trained, loading) or a digit (BatchNorm1d); longest words first, so
     "conv2d" is not split by "conv". Chinese words have no edges: every occurrence is marked. A button
     that stays in view takes the marks away (Sphinx's own link is at the top of the article). */
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
  const LETTER = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Nd}_]/u; // "_": in a name
  const ENDINGS = new Set(["", "s", "es", "ed", "d", "ing", "er", "ers", "ly"]);
  const BLOCK =
    "p, li, dt, dd, td, th, tr, table, caption, ul, ol, dl, pre, h1, h2, h3, h4, h5, h6, figcaption, " +
    "blockquote, summary, details, div, section";
  const SKIP = "script, style, svg, button, select, textarea, .nohighlight, span.highlighted";
  const upper = (c) => /\p{Lu}/u.test(c);
  const lower = (c) => /\p{Ll}/u.test(c);
  // the text next to a node, across inline elements (past those not marked), up to the block it sits in
  // or a line break
  const blockOf = (node) => node.parentElement.closest(BLOCK) || document.body;
  const beside = (node, forward) => {
    const block = blockOf(node);
    const walk = document.createTreeWalker(block, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT, (n) =>
      n.nodeType === Node.TEXT_NODE || n.tagName === "BR"
        ? NodeFilter.FILTER_ACCEPT
        : n.matches(SKIP) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP
    );
    walk.currentNode = node;
    let text = "";
    while (text.length < 32 && (forward ? walk.nextNode() : walk.previousNode())) {
      const next = walk.currentNode;
      if (next.nodeType !== Node.TEXT_NODE || blockOf(next) !== block) break; // a <br>, a nested block
      text = forward ? text + next.nodeValue : next.nodeValue + text;
    }
    return text;
  };
  const isWord = (match, before, after) => {
    if (!LETTER.test(match)) return true; // a Chinese word
    const starts =
      !LETTER.test(before) ||
      (upper(match[0]) && lower(before)) || // Data|Loader
      (upper(match[0]) && upper(before) && lower(match[1] || after[0] || "")); // BCE|Loss
    // the letters that go on in the match's case (a capital before a small letter starts the next part:
    // CUDA|Graph); a digit ends the word
    const caps = !/\p{Ll}/u.test(match);
    let ending = after.match(caps ? /^\p{Lu}*/u : /^\p{Ll}*/u)[0];
    if (caps && ending && lower(after.charAt(ending.length))) ending = ending.slice(0, -1);
    return starts && ENDINGS.has(ending.toLowerCase()) && after.charAt(ending.length) !== "_";
  };
  const markWords = (words) => {
    const root =
      document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
    // not lower-cased: the i flag matches any case ("İstanbul".toLowerCase() is no longer "İstanbul")
    const escaped = [...new Map(words.map((w) => [w.toLowerCase(), w])).values()]
      .sort((a, b) => b.length - a.length)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const any = new RegExp(escaped.join("|"), "iu");
    const found = new RegExp(escaped.join("|"), "giu"); // where a word starts
    const each = escaped.map((w) => new RegExp(w, "iuy")); // each word, longest first, at that place
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walk.nextNode()) {
      const node = walk.currentNode;
      if (any.test(node.nodeValue) && !node.parentElement.closest(SKIP)) nodes.push(node);
    }
    // the surroundings of every node with a word first, then the marks (a mark splits nodes others read)
    const around = nodes.map((node) => [beside(node, false).slice(-1), beside(node, true)]);
    nodes.forEach((node, i) => {
      const text = node.nodeValue;
      const parts = [];
      let last = 0;
      found.lastIndex = 0;
      for (let m; (m = found.exec(text)); ) {
        const before = m.index ? text[m.index - 1] : around[i][0];
        const word = each
          .map((re) => ((re.lastIndex = m.index), re.exec(text)))
          .find((w) => w && isWord(w[0], before, text.slice(m.index + w[0].length) + around[i][1]));
        if (!word) {
          found.lastIndex = m.index + (text.codePointAt(m.index) > 0xffff ? 2 : 1);
          continue;
        }
        const span = document.createElement("span");
        span.className = "highlighted";
        span.textContent = word[0];
        parts.push(document.createTextNode(text.slice(last, m.index)), span);
        last = found.lastIndex = m.index + word[0].length;
      }
      if (parts.length) node.replaceWith(...parts, document.createTextNode(text.slice(last)));
    });
  };
  if (typeof SphinxHighlight !== "undefined") {
    const sphinxHide = SphinxHighlight.hideSearchWords; // its link, the Escape key and the button
    SphinxHighlight.hideSearchWords = () => {
      sphinxHide();
      document.querySelectorAll(".fn-hide-marks").forEach((button) => button.remove());
    };
    // replaces sphinx_highlight.js's own marking (its DOMContentLoaded handler calls this)
    SphinxHighlight.highlightSearchWords = () => {
      if (typeof SPHINX_HIGHLIGHT_ENABLED !== "undefined" && !SPHINX_HIGHLIGHT_ENABLED) return;
      const url = new URL(window.location);
      const asked = localStorage.getItem("sphinx_highlight_terms") || url.searchParams.get("highlight");
      const words = (asked || "").split(/\s+/).filter(Boolean);
      localStorage.removeItem("sphinx_highlight_terms");
      url.searchParams.delete("highlight");
      window.history.replaceState(window.history.state, "", url);
      try {
        if (words.length) marked();
      } catch (error) {
        console.error(error); // and the page stays as it is (Sphinx's Escape listener is set up next)
      } finally {
        document.documentElement.dataset.fnMarks = String(words.length); // done (the browser tests wait)
      }
      function marked() {
        markWords(words);
        if (document.querySelector("span.highlighted")) {
          const hide = document.createElement("button");
          hide.type = "button";
          hide.className = "fn-hide-marks";
          hide.textContent = "Hide search marks";
          hide.addEventListener("click", () => SphinxHighlight.hideSearchWords());
          document.body.appendChild(hide);
        }
        const box = document.getElementById("searchbox");
        if (box) {
          const p = document.createElement("p");
          const a = document.createElement("a");
          p.className = "highlight-link";
          a.href = "javascript:SphinxHighlight.hideSearchWords()";
          a.textContent = typeof _ === "function" ? _("Hide Search Matches") : "Hide Search Matches";
          p.appendChild(a);
          box.appendChild(p);
        }
      }
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
