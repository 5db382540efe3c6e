/* Small fixes to every page.
   - Generated tables on a phone: each row is shown as a card (fieldnotes.css); every cell is labelled with
     its column's header so a card reads "claim: 02-C3", "statement: …".
   - Figures: each output image links to its full-size file (a wide figure is small on a phone).
   - The page's contents (right sidebar): the entry of the section being read is marked on every scroll (the
     theme's IntersectionObserver misses headings that a fast scroll or a jump carries past its band, and
     then stays on an old entry), and the contents scroll to keep that entry in view on long pages.
   - Sidebar toggles: the theme binds its handler to the first `.primary-toggle` / `.secondary-toggle` in
     the page, a hidden one (pydata-sphinx-theme#2451), so the visible buttons did nothing; they forward
     their click to it. */
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
  const start = () => {
    label();
    enlarge();
    forward();
    spy();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
