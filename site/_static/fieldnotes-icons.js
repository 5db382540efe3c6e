/* The theme's icons without its 1.5 MB Font Awesome bundle: each <i|span class="fa-solid fa-NAME"> becomes the
   inline SVG Font Awesome would draw. The build (site/fieldnotes_site/assets.py) fills ICONS with the paths of
   the icons the pages use, copied from the theme's own bundle. */
(() => {
  const ICONS = /*ICONS*/{};
  const PACK = { "fa-solid": "fas", fas: "fas", "fa-regular": "far", far: "far", "fa-brands": "fab", fab: "fab" };
  const SVG = "http://www.w3.org/2000/svg";
  const draw = (root) => {
    root.querySelectorAll("i[class*='fa-'], span[class*='fa-']").forEach((el) => {
      const cls = [...el.classList];
      const pack = cls.map((c) => PACK[c]).find(Boolean) || "fas";
      const name = cls.find((c) => ICONS[`${pack} ${c.slice(3)}`] && c.startsWith("fa-"));
      if (!name) return;
      const [w, h, d] = ICONS[`${pack} ${name.slice(3)}`];
      const svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
      svg.setAttribute("aria-hidden", "true");
      svg.setAttribute("class", ["svg-inline--fa", ...cls.filter((c) => !PACK[c])].join(" "));
      for (const a of el.attributes) if (a.name !== "class") svg.setAttribute(a.name, a.value);
      const path = document.createElementNS(SVG, "path");
      path.setAttribute("fill", "currentColor");
      path.setAttribute("d", d);
      svg.appendChild(path);
      el.replaceWith(svg);
    });
  };
  const start = () => {
    draw(document);
    new MutationObserver(() => draw(document)).observe(document.body, { childList: true, subtree: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
