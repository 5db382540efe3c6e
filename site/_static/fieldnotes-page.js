/* Small fixes to every page.
   - Generated tables on a phone: each row is shown as a card (fieldnotes.css); every cell is labelled with
     its column's header so a card reads "claim: 02-C3", "statement: …".
   - Figures: each output image links to its full-size file (a wide figure is small on a phone).
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
  const start = () => {
    label();
    enlarge();
    forward();
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
