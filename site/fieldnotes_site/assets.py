"""Weight and static files: the icon script in place of the theme's Font Awesome bundle, code without the
markup of tokens drawn as plain text, only the MathJax files pages load, the Chinese font check, and the
pruning of what no page requests (build-finished)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from pygments.style import StyleMeta
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Token
from sphinx.application import Sphinx

from .asks import ASKS, load_asks, unknown_sections
from .base import GENERATED, STATIC, logger, read_tsv
from .data import data
from .search import error_records, section_index, section_records

# Font Awesome icons the theme's pages use; the icon script draws these from the theme's own bundle, where
# each pack ("fab", "far", "fas") is an object of `name:[width,height,[aliases],"unicode","path"]` entries
# followed by the call that registers it.
_FA_ICON = re.compile(
    r'(?:"([a-z0-9-]+)"|(?<![\w-])([a-z][a-z0-9]*)):\[(\d+),(\d+),\[[^\]]*\],"[0-9a-f]+","([^"]+)"\]'
)


_FA_PACK = re.compile(r'\b[\w$]+\("(fa[brs])",[\w$]+\)')


_FA_PREFIX = {
    "fa-solid": "fas",
    "fas": "fas",
    "fa-regular": "far",
    "far": "far",
    "fa-brands": "fab",
    "fab": "fab",
}


_FA_USE = re.compile(r'<(?:i|span) class="(fa-solid|fas|fa-regular|far|fa-brands|fab) fa-([a-z0-9-]+)')


def icon_script(theme_js: Path, used: set[tuple[str, str]]) -> str:
    """A small script that replaces ``<i class="fa-solid fa-NAME">`` with inline SVG for the icons the pages
    use ((pack, name) pairs), with paths taken from the theme's Font Awesome bundle: the theme's own icons."""
    text = theme_js.read_text(encoding="utf-8")
    packs = [(m.start(), m.group(1)) for m in _FA_PACK.finditer(text)]
    icons: dict[str, list] = {}
    for m in _FA_ICON.finditer(text):
        pack = next((p for pos, p in packs if pos > m.start()), None)
        name = m.group(1) or m.group(2)
        key = f"{pack} {name}"
        if (pack, name) in used and key not in icons:
            icons[key] = [int(m.group(3)), int(m.group(4)), m.group(5)]
    missing = sorted(f"{p} {n}" for p, n in used if f"{p} {n}" not in icons)
    if missing:
        logger.warning(f"fieldnotes: icons not found in {theme_js.name}: {missing}")
    return (
        (STATIC / "fieldnotes-icons.js")
        .read_text(encoding="utf-8")
        .replace("/*ICONS*/{}", json.dumps(icons, separators=(",", ":")))
    )


def plain_classes(styles: list[StyleMeta]) -> frozenset[str]:
    """The token classes (``n``: a name, ``p``: punctuation, ...) that every one of ``styles`` draws as its
    plain text: same colour, weight, slant and background. Their ``<span>`` changes nothing on screen."""
    if not styles:
        raise ValueError("plain_classes needs at least one Pygments style")
    plain = set(STANDARD_TYPES.values()) - {""}
    for style in styles:
        if not isinstance(style, StyleMeta):
            raise ValueError(f"not a Pygments style: {style!r}")
        text = style.style_for_token(Token.Text)
        plain &= {c for t, c in STANDARD_TYPES.items() if c and style.style_for_token(t) == text}
    return frozenset(plain)


def page_styles(app: Sphinx) -> list[StyleMeta]:
    """The Pygments styles the pages draw code with: the theme's light and dark ones (pydata-sphinx-theme
    writes pygments.css from both, whatever Sphinx's own ``pygments_style``), else Sphinx's own."""
    theme = getattr(app.builder, "theme", None)
    if theme is not None:
        options = {**theme.get_options(), **(app.config.html_theme_options or {})}
        names = [options.get(f"pygments_{mode}_style") for mode in ("light", "dark")]
        if all(names):
            return [get_style_by_name(name) for name in names]
    return [app.builder.highlighter.formatter_args["style"]]


def unwrap_spans(html: str, classes: frozenset[str]) -> str:
    """``html`` with each ``<span class="C">text</span>`` of a class in ``classes`` replaced by its text (the
    code of a notebook page carried ~15,000 such spans, a third of its bytes)."""
    if not classes:
        return html
    names = "|".join(sorted(map(re.escape, classes)))
    return re.sub(rf'<span class="(?:{names})">([^<]*)</span>', r"\1", html)


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """Swap the theme's Font Awesome bundle for the icon script; load the error search on the search page;
    drop the highlighting spans that draw plain text (both colour themes' Pygments styles)."""
    if "body" in context:
        context["body"] = unwrap_spans(context["body"], plain_classes(page_styles(app)))
    pathto = context.get("pathto")
    if pathto is not None and not getattr(pathto, "_fieldnotes", False):

        def patched(target: str, *args: Any) -> str:
            if target == "_static/scripts/fontawesome.js":
                target = "_static/fieldnotes-icons.js"
            return pathto(target, *args)

        patched._fieldnotes = True  # type: ignore[attr-defined]
        context["pathto"] = patched
    if pagename in GENERATED:  # their sources are directive stubs: nothing a reader would download
        context["sourcename"] = ""
    if pagename == "claims":
        app.add_js_file("fieldnotes-ledger.js", loading_method="defer")
    if pagename == "search":
        app.add_js_file("fieldnotes-errors.js", priority=900)
        app.add_js_file("fieldnotes-sections.js", priority=900)
        app.add_js_file("fieldnotes-search.js", priority=901)


#: What the pages never load: source maps, the theme's translations (the site is English), unrendered
#: templates, the Font Awesome bundle the icon script replaces and the webfonts of icon styles no page uses,
#: Sphinx's incremental-build bookkeeping. (The browser tests fail on any request that finds nothing.)
PRUNE = (
    "_static/scripts/*.map",
    "_static/styles/*.map",
    "_static/*.map",
    "_static/locales",
    "_static/*webpack-macros.html",
    "_static/scripts/fontawesome.js",
    # the theme's CSS draws a few icons (admonition titles) with the solid webfont only
    "_static/vendor/fontawesome/webfonts/fa-brands-400.woff2",
    "_static/vendor/fontawesome/webfonts/fa-regular-400.woff2",
    ".buildinfo",
    ".buildinfo.bak",
)


#: The MathJax files pages with math load (TeX input, CommonHTML output and its fonts).
MATHJAX_FILES = ("tex-chtml.js", "output/chtml/fonts/woff-v2")


_CSS_ESCAPE = re.compile(r"\\([0-9a-fA-F]{4,6})")


def subset_icon_font(static: Path) -> None:
    """Cut the theme's Font Awesome solid webfont (115 kB; its CSS draws admonition and navigation icons
    with it) down to the glyphs the shipped CSS uses: private-use characters, literal or escaped."""
    from fontTools import subset

    font_path = static / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.woff2"
    if not font_path.exists():
        return
    wanted: set[int] = set()
    for css in static.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        if css.name == "pydata-sphinx-theme.css":
            # it bundles Font Awesome's own `.fa-NAME:before` rules for every icon; pages draw `<i class=
            # "fa-…">` icons with fieldnotes-icons.js, so only the theme's --pst-icon-* variables count
            text = " ".join(re.findall(r'--pst-icon-[a-z-]+:"([^"]*)"', text))
        wanted |= {ord(c) for c in text if 0xE000 <= ord(c) <= 0xF8FF}
        wanted |= {int(h, 16) for h in _CSS_ESCAPE.findall(text) if 0xE000 <= int(h, 16) <= 0xF8FF}
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = []
    font = subset.load_font(str(font_path), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    subset.save_font(font, str(font_path), options)


def finish(app: Sphinx, exc: Exception | None) -> None:
    if exc is not None or app.builder.format != "html":
        return
    out = Path(app.outdir)
    static = out / "_static"
    site = data(app)
    records = json.dumps(error_records(site), ensure_ascii=False, separators=(",", ":"))
    (static / "fieldnotes-errors.js").write_text(
        f"// The error index, read by fieldnotes-search.js (a script, so search works from file:// too).\n"
        f"window.FIELDNOTES_ERRORS = {records};\n",
        encoding="utf-8",
    )
    titles = {nb.docname: nb.title for nb in site.notebooks}
    extra = load_asks()
    sections = section_records(app.env, list(titles), titles, extra)
    numbered = {
        (s["page"].rsplit("/", 1)[-1][:2], s["heading"].split(" ", 1)[0]) for s in sections if s["anchor"]
    }
    stale = unknown_sections(extra, numbered)
    if stale:  # a heading was renumbered and section_questions.tsv did not follow
        logger.warning(f"fieldnotes: {ASKS.name} names sections that do not exist: {stale[:10]}")
    # the glossary's Chinese terms with their English: a question in Chinese ranks the English sections too
    glossary = [[row["zh"], row["en"]] for row in read_tsv("glossary.tsv")]
    vocab, indexed = section_index(sections)
    (static / "fieldnotes-sections.js").write_text(
        "// The section index, read by fieldnotes-search.js: a question ranks the section that answers it.\n"
        f"window.FIELDNOTES_WORDS = {json.dumps(vocab, ensure_ascii=False, separators=(',', ':'))};\n"
        f"window.FIELDNOTES_SECTIONS = {json.dumps(indexed, ensure_ascii=False, separators=(',', ':'))};\n"
        f"window.FIELDNOTES_GLOSSARY = {json.dumps(glossary, ensure_ascii=False, separators=(',', ':'))};\n",
        encoding="utf-8",
    )
    theme_fa = static / "scripts" / "fontawesome.js"
    if theme_fa.exists():
        used: set[tuple[str, str]] = set()
        for page in out.rglob("*.html"):
            for prefix, name in _FA_USE.findall(page.read_text(encoding="utf-8")):
                used.add((_FA_PREFIX[prefix], name))
        (static / "fieldnotes-icons.js").write_text(icon_script(theme_fa, used), encoding="utf-8")
    mathjax_src = Path(__import__("importlib").util.find_spec("sphinx-mathjax-offline").origin).parent
    mathjax_src = mathjax_src / "static" / "mathjax"
    for rel in MATHJAX_FILES:
        src, dst = mathjax_src / rel, static / "mathjax" / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)
    subset_icon_font(static)
    font = static / "fonts" / "fieldnotes-cjk.woff"
    if font.exists():  # every Chinese character on the site must be in the subset font
        from .cjk_font import cjk_chars, covered

        shown = set().union(*(cjk_chars(p.read_text(encoding="utf-8")) for p in out.rglob("*.html")))
        missing = "".join(sorted(shown - covered(font)))
        if missing:
            logger.warning(
                f"fieldnotes: characters {missing!r} are not in {font.name}: "
                "run `python -m fieldnotes_site.cjk_font`"
            )
    for pattern in PRUNE:
        for p in out.glob(pattern):
            shutil.rmtree(p) if p.is_dir() else p.unlink()
    doctrees = Path(app.doctreedir)
    if out in doctrees.parents:  # `sphinx-build site out` keeps them in out/.doctrees: not for readers
        shutil.rmtree(doctrees, ignore_errors=True)
