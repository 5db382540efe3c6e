"""Unit tests of the site's building blocks that need no browser (site/fieldnotes_site: the stemmer, the
CJK font, the extension's modules) and of the setup cell of tools/notebooks.py."""

import re

import pytest

from fieldnotes_site import porter as porter_js
from fieldnotes_site.assets import plain_classes, unwrap_spans
from fieldnotes_site.cjk_font import cjk_chars
from fieldnotes_site.data import ErrorEntry
from fieldnotes_site.docnodes import text_nodes
from fieldnotes_site.pages.stamp import gpu_clause
from fieldnotes_site.search import (
    NOT_PROSE,
    PARAGRAPH_END,
    SearchChinesePorter,
    _own_text,
    section_index,
    words,
)
from fieldnotes_site.sources import claim_raises_calls, heading_before
from tools.notebooks import repo_url, setup_cell_source


@pytest.mark.parametrize(
    "word, stem",
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("running", "run"),
        ("relational", "relat"),
        ("possibly", "possibl"),  # revised algorithm: bli -> ble (Snowball's Porter: "possibli")
        ("topology", "topolog"),  # logi -> log
        ("weights_only", "weights_onli"),
        ("eps", "ep"),
        ("is", "is"),  # shorter than 3: untouched, as in the browser
    ],
)
def test_porter_js_stems_as_the_search_page(word, stem):
    assert porter_js.stem(word) == stem


def test_porter_js_rejects_non_text_and_the_index_lowercases():
    with pytest.raises(TypeError, match="str"):
        porter_js.stem(3)
    assert SearchChinesePorter({}).stem("Weights_Only") == "weights_onli"


def test_section_words_split_fold_and_stem_as_the_search_page():
    # digits fold to "#" (a shape is one word), "_" splits, a hyphenated compound is also one word, small
    # words and one letter go, a Chinese run stays whole, a character beyond the BMP counts as two
    text = "Non-scalar in-place 32x512 weights_only: the x loss 随机种子 \U00020000"
    assert words(text) == [
        "non", "scalar", "place", "#x#", "weight", "onli", "loss", "随机种子", "\U00020000",
        "nonscalar", "inplac",
    ]  # fmt: skip
    with pytest.raises(TypeError, match="str"):
        words(None)


def test_section_index_counts_fields_and_numbers_common_words_first():
    recs = [
        {"anchor": "", "heading": "Top", "title": "", "parent": "", "text": "loss loss grad", "asks": []},
        {
            "anchor": "a",
            "heading": "Loss",
            "title": "",
            "parent": "Hooks",
            "text": "loss",
            "asks": ["why loss?"],
        },
    ]
    vocab, out = section_index(recs)
    assert vocab[0] == "loss" and len(vocab) == len(set(vocab))
    n = {w: i for i, w in enumerate(vocab)}
    # a page's top has no heading words; a word twice is [number, count]
    assert out[0]["w"] == [[], [], [[n["loss"], 2], n["grad"]]]
    assert out[1]["w"] == [[n["loss"]], [n["hook"]], [n["loss"]]] and out[1]["q"] == [[n["why"], n["loss"]]]
    assert "asks" not in out[1] and out[1]["text"] == "loss"


def test_claim_raises_calls_resolve_names_assigned_per_version():
    src = """if since("2.9"):
    ERR, MSG = AssertionError, "Guard failed"
else:
    ERR, MSG = RuntimeError, "is specialized at 3"
err = claim_raises("C9", "s", f, ERR, MSG, against="counterfactual: x")
claim_raises("C10", "s", f, ValueError, match="singular", against="formula: y")
"""
    assert claim_raises_calls(src) == [
        ("C9", "AssertionError / RuntimeError", "Guard failed / is specialized at 3"),
        ("C10", "ValueError", "singular"),
    ]


def test_text_nodes_keep_text_exact():
    parts = text_nodes("`__call__` runs hooks; *args and 'quotes' stay")
    assert [n.astext() for n in parts] == ["__call__", " runs hooks; *args and 'quotes' stay"]
    assert parts[0].tagname == "literal"


def test_setup_cell_installs_from_the_configured_repository():
    assert repo_url().startswith("https://")
    src = setup_cell_source("https://example.org/fork")
    assert 'repo = "git+https://example.org/fork"' in src
    assert 'f"pytorch-field-notes[colab] @ {repo}" if on_colab' in src
    assert max(len(line) for line in src.splitlines()) <= 88  # fits the notebooks' columns
    assert "FIELDNOTES_INSTALL" in src and "invalidate_caches" in src
    compile(src, "setup", "exec")


def test_cjk_chars():
    assert cjk_chars("随机种子 seed，ok") == {"随", "机", "种", "子", "，"}


def test_colab_extra_pins_match_the_lock():
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["colab"]
    lock = set((root / "requirements.txt").read_text().splitlines())
    assert extra and all(pin in lock for pin in extra), [p for p in extra if p not in lock]


#: Modules Colab preinstalls that the notebooks and helpers import (Colab's own list of packages; the
#: colab extra in pyproject.toml installs the others).
COLAB_PREINSTALLED = {
    "torch",
    "numpy",
    "matplotlib",
    "cv2",
    "PIL",
    "psutil",
    "safetensors",
    "filelock",
    "IPython",
}


def test_colab_extra_covers_what_the_notebooks_import():
    """Every third-party module a notebook or helper imports is preinstalled on Colab or installed by the
    colab extra (notebook 03's opacus was neither: its Colab link failed at the imports)."""
    import ast
    import importlib.metadata as md
    import sys
    import tomllib
    from pathlib import Path

    import nbformat

    root = Path(__file__).resolve().parent.parent
    sources = [p.read_text(encoding="utf-8") for p in (root / "helpers").glob("*.py")]
    for nb in sorted((root / "notebooks").glob("*.ipynb")):
        cells = nbformat.read(nb, as_version=4).cells
        sources += [
            c.source for c in cells if c.cell_type == "code" and not c.source.lstrip().startswith("%")
        ]
    mods = set()
    for src in sources:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Import):
                mods |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                mods.add(node.module.split(".")[0])
    third = {m for m in mods if m not in sys.stdlib_module_names and m not in {"helpers", "fieldnotes"}}
    assert "opacus" in third and "torch" in third  # the walk found the imports
    extra = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]["colab"]
    extra_dists = {pin.split("==")[0].lower() for pin in extra}
    dists = md.packages_distributions()
    missing = {
        m for m in third - COLAB_PREINSTALLED if not {d.lower() for d in dists.get(m, [])} & extra_dists
    }
    assert not missing, (
        f"imported by notebooks or helpers, but neither on Colab nor in the colab extra: {missing}"
    )


def test_heading_before_skips_comments_in_fenced_code():
    import nbformat

    md = nbformat.v4.new_markdown_cell
    cells = [
        md("## 10.3 BCE is unsafe to autocast\nbefore:\n```python\n# the model returns logits\nx = 1\n```"),
        nbformat.v4.new_code_cell("pass"),
    ]
    assert heading_before(cells, 1) == "10.3 BCE is unsafe to autocast"
    assert heading_before([md("~~~\n# not a heading\n~~~"), *cells[1:]], 1) == ""
    assert heading_before([md("#hashtag, not a heading"), *cells[1:]], 1) == ""


@pytest.mark.parametrize(
    "text, tabular",
    [
        ("B      loop   vmap\n256    71.0   3.9\n512    346    13.1", True),  # a timing table
        ("a | b\n1 | 2\n3 | 4", True),
        ("RuntimeError: expected scalar type Float but found Double", False),  # one line
        ("epoch 0: loss 0.53 on 64\nepoch 1: loss 0.50 on 64\nepoch 2: loss 0.49 on 64", False),
        ("x  1\ny 2\nz 3", False),  # one line with a gap is not a table
        # two spaces after a full stop: sentences of two messages (16 §21.2), not columns
        (
            "RuntimeError: The expanded size of the tensor (5) must match the existing size (4) at\n"
            "non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [2, 4]\n"
            "RuntimeError: The expanded size of the tensor (4) must match the existing size (5) at\n"
            "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 5]",
            False,
        ),
    ],
)
def test_printed_tables_are_told_from_prose_outputs(text, tabular):
    from fieldnotes_site.notebook_page import is_tabular

    assert is_tabular(text) is tabular


def test_cached_segmentation_splits_as_jieba_does_the_whole_text(tmp_path):
    """SearchChinesePorter.split segments block by block with a cache. On the notebooks' own text (English,
    code, Chinese terms) it returns what Sphinx's Chinese indexer computes, jieba's search-mode segmentation
    of the whole text plus its Latin words, word for word, also after a user dictionary (the build's glossary
    terms) is loaded once segmentations were cached: 随机种子 is then one word too, not only 随机 + 种子."""
    import jieba

    from tools.notebooks import notebook_paths, read

    texts = ["随机种子 的 可复现性：weights_only=True 的 torch.load 3.5e-3 x+1"] + [
        c.source for p in notebook_paths()[:4] for c in read(p).cells
    ]
    SearchChinesePorter({}).split(texts[0])  # segmentations cached before the dictionary
    userdict = tmp_path / "userdict.txt"
    userdict.write_text("随机种子 100000\n可复现性 100000\n", encoding="utf-8")
    ours = SearchChinesePorter({"dict": str(userdict)})
    for text in texts:
        latin = [t.strip() for t in ours.latin1_letters.findall(text)]
        assert ours.split(text) == list(jieba.cut_for_search(text)) + latin
    assert "随机种子" in ours.split(texts[0])


def test_section_text_marks_code_and_drops_markup():
    """A section's indexed text (the search page quotes it): prose as read, each paragraph and list item
    ended by PARAGRAPH_END (a snippet's sentence ends there), code/math/tables between NOT_PROSE marks (the
    snippet prefers prose), raw HTML inside a paragraph (an icon's SVG) not at all, and the subsections'
    text left to them."""
    from docutils import nodes

    icon = nodes.raw("", '<svg viewBox="0 0 16 16"><circle r="6"/></svg>', format="html")
    para = nodes.paragraph("", "", nodes.Text("A slow cell "), icon, nodes.Text(" takes 9 s."))
    code = nodes.literal_block("", "x = torch.ones(3)")
    sub = nodes.section("", nodes.title("", "1.1 Sub"), nodes.paragraph("", "Not mine."))
    item = nodes.list_item("", nodes.paragraph("", "Why? (§1.1)"))
    sec = nodes.section("", nodes.title("", "1 Top"), para, nodes.bullet_list("", item), code, sub)
    text = _own_text(sec)
    end = PARAGRAPH_END
    assert text == f"A slow cell takes 9 s.{end} Why? (§1.1){end} {NOT_PROSE}x = torch.ones(3){NOT_PROSE}"
    assert "svg" not in text and "Not mine" not in text
    assert "viewBox" in para.astext()  # what the text would carry without the filter


def _git_tree(tmp_path):
    import subprocess

    root = tmp_path / "checkout"
    (root / "site").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "site" / "index.md").write_text("# Home\n")
    (root / "tests" / "test_x.py").write_text("def test(): pass\n")
    (root / ".gitignore").write_text("_build/\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return root


def test_inputs_digest_follows_every_non_test_file_git_sees(tmp_path, monkeypatch):
    from fieldnotes_site.build import inputs_digest

    root = _git_tree(tmp_path)
    first = inputs_digest(root)
    assert first and first == inputs_digest(root)
    (root / "tests" / "test_x.py").write_text("def test(): assert 1\n")  # a test: not an input
    (root / "_build").mkdir()
    (root / "_build" / "page.html").write_text("<p>")  # ignored: not an input
    assert inputs_digest(root) == first
    (root / "site" / "index.md").write_text("# Home page\n")  # an edit
    edited = inputs_digest(root)
    assert edited != first
    (root / "site" / "new.md").write_text("new\n")  # an untracked file
    assert inputs_digest(root) not in (first, edited)
    (root / "site" / "new.md").unlink()
    assert inputs_digest(root) == edited
    (root / "site" / "notebooks").symlink_to("../notebooks")  # a link: hashed as its target
    linked = inputs_digest(root)
    (root / "site" / "notebooks").unlink()
    (root / "site" / "notebooks").symlink_to("../elsewhere")
    assert inputs_digest(root) not in (edited, linked)
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = inputs_digest(root)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")  # Sphinx dates the copyright from it
    assert inputs_digest(root) != before
    assert inputs_digest(tmp_path / "not-a-checkout") is None


def test_build_skips_only_a_build_of_the_same_inputs_that_passed(tmp_path, monkeypatch):
    import subprocess as sp

    from fieldnotes_site import build as b

    ran: list[list[str]] = []
    digest = ["abc"]
    monkeypatch.setattr(b, "inputs_digest", lambda root=None: digest[0])
    monkeypatch.setattr(b.subprocess, "run", lambda cmd, **kw: ran.append(cmd) or sp.CompletedProcess(cmd, 0))
    out = tmp_path / "html"
    out.mkdir()
    assert b.build(strict=False, out=out) == 0 and len(ran) == 1  # no stamp yet: builds
    assert b.build(strict=False, out=out) == 0 and len(ran) == 1  # same inputs: skipped
    assert b.build(strict=True, out=out) == 0 and len(ran) == 2  # a lenient build does not count as strict
    assert b.build(strict=False, out=out) == 0 and len(ran) == 2  # a strict one serves a lenient request
    assert b.build(strict=True, out=out, force=True) == 0 and len(ran) == 3
    digest[0] = "def"
    assert b.build(strict=True, out=out) == 0 and len(ran) == 4  # an edit: builds
    monkeypatch.setattr(b.subprocess, "run", lambda cmd, **kw: sp.CompletedProcess(cmd, 1))
    digest[0] = "ghi"
    assert b.build(strict=True, out=out) == 1 and not b.stamp_path(out).exists()  # a failure: no stamp
    digest[0] = None  # no git: always builds
    monkeypatch.setattr(b.subprocess, "run", lambda cmd, **kw: ran.append(cmd) or sp.CompletedProcess(cmd, 0))
    assert b.build(strict=True, out=out) == 0 and b.build(strict=True, out=out) == 0 and len(ran) == 6
    # an edit made while it builds: not stamped as built
    moving = iter(["v1", "v2", "v2", "v2", "v2", "v2"])
    monkeypatch.setattr(b, "inputs_digest", lambda root=None: next(moving))
    assert b.build(strict=True, out=out) == 0 and not b.stamp_path(out).exists() and len(ran) == 7
    assert b.build(strict=True, out=out) == 0 and b.stamp_path(out).exists() and len(ran) == 8
    # the stamp lies beside the published folder, and any Sphinx run into the folder voids it
    assert b.stamp_path(out).parent == out.parent and not any(out.iterdir())
    from types import SimpleNamespace

    from fieldnotes_site import forget_inputs

    forget_inputs(SimpleNamespace(outdir=str(out)))
    assert not b.stamp_path(out).exists()
    assert b.build(strict=True, out=out) == 0 and len(ran) == 9


def test_rule_titles_render_literally_in_the_rule_notes():
    """The note above a claim that a `fieldnotes check` rule cites shows the rule's title as typed, whatever
    Markdown characters it holds (``torch.cuda.amp.*``, ``a[..., ::-1]``, ``torch._six``)."""
    import html

    from markdown_it import MarkdownIt

    from fieldnotes_site.base import RULE_TITLES
    from fieldnotes_site.notebook_page import literal_markdown

    md = MarkdownIt("commonmark")
    titles = [*RULE_TITLES.values(), "*a* _b_ `c` [d](e) <f> {g} #h |i| ~j~ \\k"]
    for title in titles:
        assert md.renderInline(literal_markdown(title)) == html.escape(title, quote=False), title
    # without the escaping, the counterfactual title does turn into markup
    assert md.renderInline(titles[-1]) != html.escape(titles[-1], quote=False)


def test_a_figure_s_alt_text_is_its_caption_as_plain_text():
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_output

    from fieldnotes_site.notebook_page import figure_alts

    png = new_output("display_data", data={"image/png": "iVBORw0KGgo="})
    cells = [
        new_code_cell("plot()", outputs=[png]),
        new_markdown_cell(
            "**Figure 2.3.** The `blue` line ([docs](https://x.y)) is $x/2$, 64·*t*/2 for"
            " _two_ `num_workers`, like $\\sqrt{B-1}/B$; a*b*c stays."
        ),
        new_code_cell("plot()", outputs=[png]),  # no caption after it: no alt
        new_markdown_cell("Some prose."),
        new_code_cell("print(1)"),
        new_markdown_cell("**Figure 9.** Not after a figure."),
    ]
    assert figure_alts(cells) == {
        0: "Figure 2.3. The blue line (docs) is x/2, 64·t/2 for two num_workers, like √(B-1)/B; a*b*c stays."
    }


@pytest.mark.parametrize(
    "n, passed, stale, says",
    [
        (0, 0, False, ""),
        (4, 0, False, " (and 4 that need CUDA, not yet run on a GPU runner)"),
        (1, 1, False, " (and 1 that needs CUDA: passed on a GPU runner)"),
        (
            4,
            3,
            True,
            " (and 4 that need CUDA: 3 passed on a GPU runner, recorded for an earlier revision of this "
            "page; 1 not yet run there)",
        ),
    ],
)
def test_the_stamp_says_how_many_gpu_claims_ran_on_a_gpu(n, passed, stale, says):
    assert gpu_clause(n, passed, stale) == says


@pytest.mark.parametrize(
    "n, passed, skipped, failed, says",
    [
        (
            4,
            3,
            {"needs 2 GPUs": 1},
            0,
            " (and 4 that need CUDA: 3 passed on a GPU runner; 1 skipped there: needs 2 GPUs)",
        ),
        (
            3,
            0,
            {"needs 2 GPUs": 1},
            0,
            " (and 3 that need CUDA: 1 skipped on a GPU runner: needs 2 GPUs; 2 not yet run there)",
        ),
        (
            6,
            2,
            {"a": 1, "b": 1},
            1,
            " (and 6 that need CUDA: 2 passed on a GPU runner; 1 failed there; 1 skipped there: a; "
            "1 skipped there: b; 1 not yet run there)",
        ),
        (2, 0, {}, 2, " (and 2 that need CUDA: 2 failed on a GPU runner)"),
        (1, 0, {"x" * 100: 1}, 0, f" (and 1 that needs CUDA: 1 skipped on a GPU runner: {'x' * 79}…)"),
    ],
)
def test_the_stamp_says_what_became_of_the_gpu_claims_that_did_not_pass(n, passed, skipped, failed, says):
    assert gpu_clause(n, passed, False, skipped, failed) == says


def test_the_stamp_refuses_more_passes_than_claims():
    with pytest.raises(ValueError, match="between 0 and n=2"):
        gpu_clause(2, 3, False)
    with pytest.raises(ValueError, match="at most n=2"):
        gpu_clause(2, 1, False, {"needs 2 GPUs": 2})
    with pytest.raises(ValueError, match="at most n=2"):
        gpu_clause(2, 1, False, {"needs 2 GPUs": 1}, failed=1)
    with pytest.raises(ValueError, match="must be positive"):
        gpu_clause(2, 1, False, {"needs 2 GPUs": 0})
    with pytest.raises(ValueError, match="failed not negative"):
        gpu_clause(2, 1, False, failed=-1)


def test_section_references_become_links_and_a_dangling_one_warns(caplog):
    """ "§6.3" links its section on the same page, "notebook 12 §1.3–§1.4" both sections of the other page;
    code, existing links and a section the notebook lacks stay text (the last with a build warning)."""
    from types import SimpleNamespace

    from docutils import nodes
    from docutils.utils import new_document

    from fieldnotes_site.sectionrefs import link_section_refs
    from tools.notebooks import notebook_paths

    paths = {p.name[:2]: p for p in notebook_paths()}
    nbs = {
        num: SimpleNamespace(num=num, path=paths[num], docname=f"notebooks/{paths[num].stem}")
        for num in ("09", "12")
    }
    site = SimpleNamespace(by_doc={nb.docname: nb for nb in nbs.values()}, by_num=nbs)
    app = SimpleNamespace(
        fieldnotes=site, builder=SimpleNamespace(get_relative_uri=lambda a, b: b[10:] + ".html")
    )
    doc = new_document("test")
    prose = (
        "See §6.3, notebook 12 §1.3–§1.4; §99.1; Notebook 12 (§2.1) notebook 12's §2.2, §2.3 of notebook 12 "
    )
    para = nodes.paragraph(
        "",
        "",
        nodes.Text(prose),
        nodes.literal("", "§6.3"),
        nodes.reference("", "§7.1", refuri="#x"),
    )
    doc += para
    with caplog.at_level("WARNING"):
        link_section_refs(app, doc, nbs["09"].docname)
    links = [(r.astext(), r["refuri"]) for r in para.findall(nodes.reference)]
    assert links == [
        ("§6.3", "#sec-09-6-3"),
        ("notebook 12 §1.3", f"{paths['12'].stem}.html#sec-12-1-3"),
        ("§1.4", f"{paths['12'].stem}.html#sec-12-1-4"),
        ("§2.1", f"{paths['12'].stem}.html#sec-12-2-1"),
        ("§7.1", "#x"),
    ]
    assert para.astext() == prose + "§6.3§7.1"  # the text is unchanged
    assert "'§99.1' names no section of notebook 09" in caplog.text
    assert "'§2.2': of which notebook?" in caplog.text and "'§2.3': of which notebook?" in caplog.text


def test_chromium_path_prefers_chromium_env_then_the_headless_shell(tmp_path, monkeypatch):
    from fieldnotes_site.browser import CHROMIUM_NAMES, chromium_path

    def fake(name: str, executable: bool = True) -> str:
        path = tmp_path / name
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755 if executable else 0o644)
        return str(path)

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CHROMIUM", raising=False)
    assert chromium_path() is None
    older = fake("chromium-browser")
    assert chromium_path() == older
    full = fake("chromium")
    assert chromium_path() == full
    shell = fake("chromium-headless-shell")
    assert chromium_path() == shell and CHROMIUM_NAMES[0] == "chromium-headless-shell"
    monkeypatch.setenv("CHROMIUM", full)
    assert chromium_path() == full
    monkeypatch.setenv("CHROMIUM", fake("not-runnable", executable=False))
    assert chromium_path() is None


def test_join_ranges_keeps_numeric_ranges_whole_outside_code():
    """A range of prose goes into one no-wrap span, the text unchanged: "2.0–2.15", "§3.1–3.3" after its
    section link, "§1.2–§1.4" of two links. Code, math and raw HTML are shown as written; "x86–64",
    "2.0–2.15x" and a range after another kind of link are no ranges; a second run changes nothing."""
    from docutils import nodes
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from fieldnotes_site.notebook_page import join_ranges

    def sec(num: str) -> nodes.reference:
        return nodes.reference(num, num, refuri="#s", classes=["fn-secref"])

    doc = new_document("<test>", get_default_settings(Parser))
    prose = nodes.paragraph(
        "",
        "",
        nodes.Text("torch 2.0–2.15, x86–64, 2.0–2.15x, 第2–3章 and "),
        nodes.reference("v2", "v2", refuri="#v"),
        nodes.Text("–3"),  # equal to the last Text: found by identity, not by value
        nodes.Text(" hold; "),
        sec("§3.1"),
        nodes.Text("–3.3 and "),
        sec("§1.2"),
        nodes.Text("–"),
        sec("§1.4"),
        nodes.Text("; "),
        sec("§2.1"),
        nodes.Text("–3"),
    )
    kept = [
        nodes.literal("2.0–2.15", "2.0–2.15"),
        nodes.literal_block("1–2", "1–2"),
        nodes.math("1–2", "1–2"),
        nodes.raw("", "1–2", format="html"),
    ]
    doc += [prose, nodes.paragraph("", "", *kept)]
    before = [p.astext() for p in doc.children]
    join_ranges(None, doc, "x")
    assert [p.astext() for p in doc.children] == before
    spans = [n.astext() for n in doc.findall(nodes.inline) if "fn-range" in n["classes"]]
    assert spans == ["2.0–2.15", "2–3", "§3.1–3.3", "§1.2–§1.4", "§2.1–3"]
    assert [n for n in doc.children[1].children] == kept
    join_ranges(None, doc, "x")
    assert [n.astext() for n in doc.findall(nodes.inline) if "fn-range" in n["classes"]] == spans


def test_an_asserted_part_cut_inside_brackets_is_listed_with_an_ellipsis():
    """The error lists show an asserted part that stops inside brackets or quotes with "…" (the search box
    listed "RuntimeError: DataLoader worker (pid" as if cut by mistake); whole messages, balanced parts and
    exact messages stay as written, and only the first line is shown."""

    def shown(message: str, kind: str = "asserted") -> str:
        return ErrorEntry("a", kind, "RuntimeError", message, "16", "notebooks/x", "1.1").shown

    assert shown("DataLoader worker (pid") == "DataLoader worker (pid…"
    assert shown('Target size (torch.Size([16])) must be the same as "x') == (
        'Target size (torch.Size([16])) must be the same as "x…'
    )
    assert shown("Can't get attribute 'TinyNet' on <module '__main__'>") == (
        "Can't get attribute 'TinyNet' on <module '__main__'>"
    )
    assert shown("Expected more than 1 value per channel") == "Expected more than 1 value per channel"
    assert shown("DataLoader worker (pid", kind="exact") == "DataLoader worker (pid"
    assert shown("\x1b[31mfirst line\x1b[0m\nsecond line") == "first line"
    assert shown("") == "(message varies)"


def test_only_spans_drawn_as_plain_text_are_dropped_from_code():
    """The token classes both colour themes draw exactly as plain text lose their ``<span>`` (a name, a
    punctuation mark, whitespace); a keyword, a string or an operator keeps its colour. Checked against the
    stylesheet the theme writes from the same two styles (pydata-sphinx-theme's own function): every
    dropped class has the plain text's colour there, in light and in dark."""
    from pydata_sphinx_theme.pygments import get_pygments_stylesheet
    from pygments.styles import get_style_by_name

    names = ("a11y-high-contrast-light", "a11y-high-contrast-dark")
    plain = plain_classes([get_style_by_name(n) for n in names])
    assert {"n", "p", "w"} <= plain and not {"k", "s2", "o", "mi", "c1"} & plain, sorted(plain)
    css = get_pygments_stylesheet(*names)
    for mode in ("light", "dark"):
        prefix = re.escape(f'html[data-theme="{mode}"] .highlight')
        base = re.search(prefix + r" \{[^}]*color: (#\w+)", css)[1]
        for c in plain:
            rule = re.search(prefix + rf" \.{c} \{{([^}}]*)\}}", css)
            assert rule is None or rule[1].strip() == f"color: {base}", (mode, c, rule and rule[1])
    html = '<span class="n">x</span><span class="o">=</span><span class="p">(</span>'
    html += '<span class="s2">"a"</span>'
    assert unwrap_spans(html, plain) == 'x<span class="o">=</span>(<span class="s2">"a"</span>'
    assert unwrap_spans(html, frozenset()) == html
    with pytest.raises(ValueError):
        plain_classes([])
    with pytest.raises(ValueError):
        plain_classes(["tango"])
