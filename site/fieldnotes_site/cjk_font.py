"""Build site/_static/fonts/fieldnotes-cjk.woff: the CJK characters the site uses, cut from Noto Sans CJK SC.

The site's Chinese text (glossary terms, coverage notes, notebook text and outputs, the generated pages'
headings) is little more than a hundred distinct characters, so a subset web font of just those glyphs
lets every page render Chinese without a system CJK font and without the network. The characters are
collected from every .tsv/.md/.py file under site/, notebooks/*.ipynb, README.md and tools/*.py (the
generator writes Chinese headings and keywords into the pages), plus --extra.

Source font: Noto Sans CJK (SIL OFL 1.1), Debian package fonts-noto-cjk. The Simplified Chinese face of
NotoSansCJK-Regular.ttc is found by its family name, so the collection's face order does not matter.
Output is WOFF (zlib): the project has no brotli, which WOFF2 needs. Hinting, the vertical-writing tables
and every layout feature but those Chromium's text-spacing-trim uses on runs of fullwidth punctuation are
dropped; the site sets CJK text horizontally.

    .venv/bin/python -m fieldnotes_site.cjk_font            # regenerate after the site's Chinese text changes
    .venv/bin/python -m fieldnotes_site.cjk_font --source /path/NotoSansCJK-Regular.ttc --extra "more text"

`cjk_chars` and `covered` are for tests: every CJK character of the built HTML must be in the font.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTPUT = ROOT / "site" / "_static" / "fonts" / "fieldnotes-cjk.woff"
#: Where the source font is looked for, in order: Debian's fonts-noto-cjk, then a kept copy of it.
SOURCE_CANDIDATES = (
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    Path.home() / ".cache" / "fieldnotes-fonts" / "NotoSansCJK-Regular.ttc",
)
FACE = "Noto Sans CJK SC"
#: CJK punctuation, Extension A, the unified ideographs, fullwidth/halfwidth forms.
CJK_RANGES = ((0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xFF00, 0xFFEF))
_CJK = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES) + "]")
SITE_SUFFIXES = {".tsv", ".md", ".py"}
#: name table records kept: the standard names plus the licence description and URL (OFL condition 2).
NAME_IDS = [0, 1, 2, 3, 4, 5, 6, 13, 14]
#: Layout features kept: half-width alternates of fullwidth punctuation (text-spacing-trim); a few bytes.
#: Noto Sans CJK 2.004 has `halt`; `chws` is kept where a source has it.
LAYOUT_FEATURES = ["halt", "chws"]
#: Tables only vertical writing uses (the site has none) and the baseline table.
DROP_TABLES = ["vhea", "vmtx", "VORG", "BASE"]


def cjk_chars(text: str) -> set[str]:
    """The distinct CJK characters (see CJK_RANGES) in `text`."""
    return set(_CJK.findall(text))


def covered(font_path: str | Path, font_number: int = 0) -> set[str]:
    """The characters in the font's cmap (WOFF, OTF/TTF, or face `font_number` of a collection)."""
    from fontTools.ttLib import TTFont

    with TTFont(font_path, fontNumber=font_number, lazy=True) as font:
        return {chr(cp) for cp in font.getBestCmap()}


def source_files(root: Path = ROOT) -> list[Path]:
    """The files whose text reaches the site, sorted."""
    site = [p for p in (root / "site").rglob("*") if p.is_file() and p.suffix in SITE_SUFFIXES]
    tools = [p for p in (root / "tools").glob("*.py") if p.name != Path(__file__).name]  # not this file
    other = [*(root / "notebooks").glob("*.ipynb"), *tools, root / "README.md"]
    return sorted(p for p in [*site, *other] if p.is_file())


def _text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        # Re-dump so that characters stored as \\uXXXX escapes are seen too.
        text = json.dumps(json.loads(text), ensure_ascii=False)
    return text


def collect(paths: Iterable[Path], extra: str = "") -> set[str]:
    """Every CJK character in the files `paths` and in `extra`."""
    chars = cjk_chars(extra)
    for path in paths:
        chars |= cjk_chars(_text(path))
    return chars


def find_source(explicit: Path | None) -> Path:
    """The source font: `explicit` if given, else the first of SOURCE_CANDIDATES that exists."""
    candidates = [explicit] if explicit else list(SOURCE_CANDIDATES)
    for path in candidates:
        if path.is_file():
            return path
    tried = ", ".join(str(p) for p in candidates)
    sys.exit(
        f"cjk_font: source font not found (tried {tried}).\n"
        "Install it with `apt-get install fonts-noto-cjk`, or pass --source PATH "
        "(NotoSansCJK-Regular.ttc or NotoSansCJKsc-Regular.otf)."
    )


def face_index(path: Path, family: str = FACE) -> int:
    """The index of the face named `family` in a font collection; 0 for a single-font file."""
    from fontTools.ttLib import TTCollection

    with path.open("rb") as f:
        is_collection = f.read(4) == b"ttcf"
    if not is_collection:
        return 0
    with TTCollection(path, lazy=True) as collection:
        for i, font in enumerate(collection.fonts):
            if family in (font["name"].getDebugName(1), font["name"].getDebugName(16)):
                return i
    sys.exit(f"cjk_font: no face named {family!r} in {path}")


def build(source: Path, chars: set[str], output: Path, font_number: int) -> int:
    """Subset face `font_number` of `source` to `chars`, write it as WOFF to `output`; return its size."""
    from fontTools import subset

    options = subset.Options()
    options.flavor = "woff"
    options.font_number = font_number
    options.hinting = False
    options.layout_features = LAYOUT_FEATURES
    options.desubroutinize = True  # compresses better
    options.drop_tables += DROP_TABLES
    options.name_IDs = NAME_IDS
    options.notdef_outline = True
    with subset.load_font(str(source), options, dontLoadGlyphNames=True) as font:
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(ord(c) for c in chars))
        subsetter.subset(font)
        output.parent.mkdir(parents=True, exist_ok=True)
        subset.save_font(font, str(output), options)
    return output.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_sources = " or ".join(str(p) for p in SOURCE_CANDIDATES)
    parser.add_argument("--source", type=Path, help=f"source font (default: {default_sources})")
    parser.add_argument("--face", default=FACE, help="family name of the face in a collection (%(default)s)")
    parser.add_argument("--extra", default="", help="more text whose CJK characters the font must have")
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write (%(default)s)")
    args = parser.parse_args(argv)

    source = find_source(args.source)
    number = face_index(source, args.face)
    files = source_files()
    chars = collect(files, args.extra)
    if not chars:
        sys.exit("cjk_font: no CJK characters found; nothing to build")
    missing = chars - covered(source, number)
    if missing:
        sys.exit(f"cjk_font: {args.face} lacks {len(missing)} character(s): {''.join(sorted(missing))}")
    size = build(source, chars, args.output, number)
    print(
        f"{args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}: "
        f"{len(chars)} characters from {len(files)} files, {size} bytes ({source}, face {number} {args.face})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
