/* Generated tables on a phone: each row is shown as a card (fieldnotes.css); this labels every cell with
   its column's header so a card reads "claim: 02-C3", "statement: …". */
(() => {
  const label = () =>
    document.querySelectorAll("table.fn-table").forEach((table) => {
      const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      table.querySelectorAll("tbody tr").forEach((tr) =>
        [...tr.children].forEach((td, i) => names[i] && td.setAttribute("data-label", names[i]))
      );
    });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", label);
  else label();
})();
