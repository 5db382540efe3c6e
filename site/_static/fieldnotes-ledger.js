/* The claim ledger's filter bar (claims.html only): narrow the rows by notebook, by outcome (on one torch
   release or on any), and by words (a claim id such as "05-C3", or words of its statement). The choice is
   kept in the address (?nb=05&outcome=failed&release=2.5&q=...), so a filtered ledger can be linked. */
(() => {
  const start = () => {
    const form = document.querySelector("form.fn-ledger-filter");
    if (!form) return;
    const rows = [...document.querySelectorAll("details.fn-row")];
    const count = form.querySelector(".fn-ledger-count");
    const none = document.querySelector(".fn-ledger-none");
    const params = new URLSearchParams(window.location.search);
    ["nb", "outcome", "release", "q"].forEach((k) => params.has(k) && (form.elements[k].value = params.get(k)));
    const results = (row) =>
      new Map(row.dataset.results.split("|").filter(Boolean).map((p) => p.split(":")));
    const matches = (row, f) => {
      if (f.nb && row.dataset.nb !== f.nb) return false;
      if (f.outcome) {
        const r = results(row);
        const seen = f.release ? [r.get(f.release)] : [...r.values(), row.dataset.stored];
        if (f.outcome === "held" && !f.release) {
          if (![...r.values()].every((w) => w === "held" || w === "skipped" || w === "not recorded")) return false;
          if (row.dataset.stored !== "held") return false;
        } else if (!seen.includes(f.outcome)) return false;
      }
      if (f.q) {
        const text = (row.dataset.cid + " " + row.textContent).toLowerCase();
        if (!f.q.toLowerCase().split(/\s+/).every((w) => text.includes(w))) return false;
      }
      return true;
    };
    const apply = () => {
      const f = Object.fromEntries(["nb", "outcome", "release", "q"].map((k) => [k, form.elements[k].value.trim()]));
      let shown = 0;
      rows.forEach((row) => {
        const ok = matches(row, f);
        row.hidden = !ok;
        shown += ok;
      });
      document.querySelectorAll("section.fn-ledger-nb").forEach((sec) => {
        sec.hidden = !sec.querySelector("details.fn-row:not([hidden])");
      });
      count.textContent = `${shown} of ${rows.length} claims`;
      if (none) none.hidden = shown > 0;
      const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
      history.replaceState(null, "", q.toString() ? `?${q}${window.location.hash}` : window.location.pathname + window.location.hash);
    };
    form.addEventListener("input", apply);
    form.addEventListener("change", apply);
    apply();
    // a link to one claim (#ledger-05-c3) opens its row
    const target = window.location.hash && document.getElementById(window.location.hash.slice(1));
    if (target && target.matches("details.fn-row")) target.open = true;
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
