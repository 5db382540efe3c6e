"""Search: Chinese-mode indexing with the browser's own Porter stemmer, the error index that
_static/fieldnotes-search.js matches a pasted error message against, and the section index it ranks a
reader's question against (so a question lands on the section that answers it, not on a page's top)."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Any

import jieba
from docutils import nodes
from sphinx.search.zh import SearchChinese

from tools.notebooks import ANSI_RE

from . import porter
from .data import SiteData


class SearchChinesePorter(SearchChinese):
    """Chinese search whose English words are stemmed exactly as the browser stems the query.

    Sphinx's Chinese indexer stems English words with Snowball "english" (Porter2), and keeps a word whole
    when its stem would be shorter than 3 letters, while the search page stems queries with Martin Porter's
    JavaScript stemmer and no such rule: words such as ``weights_only`` or ``eps`` were indexed under keys
    the search box never asks for. Here the index stems with a port of that JavaScript (.porter).
    """

    def stem(self, word: str) -> str:
        return porter.stem(word.lower())

    def init(self, options: dict[str, str]) -> None:
        super().init(options)  # loads the user dictionary (the glossary's terms) into jieba
        _segment.cache_clear()  # segmentations made before it would miss those terms

    def split(self, input: str) -> list[str]:
        """What :meth:`SearchChinese.split` returns, with jieba run once per distinct block.

        ``jieba.cut_for_search`` segments each block of ``jieba.re_han_default.split(input)`` on its own
        (words, numbers, runs of Chinese; the separators between them), so the concatenation of the
        blocks' segmentations is the text's. Most of the site's blocks are the same English words again
        and again: caching them took the index from 11 s of a 24 s build to 4 s, and the built site came out
        byte for byte the same (tests/test_site_tools.py compares the split with jieba's on whole texts).
        """
        chinese = [w for blk in jieba.re_han_default.split(input) if blk for w in _segment(blk)]
        latin1 = [term.strip() for term in self.latin1_letters.findall(input)]
        self.latin_terms.update(latin1)
        return chinese + latin1


@lru_cache(maxsize=None)
def _segment(block: str) -> tuple[str, ...]:
    """jieba's search-mode segmentation of one block (jieba's dictionary is loaded once, at init)."""
    return tuple(jieba.cut_for_search(block))


def error_records(site: SiteData) -> list[dict[str, str]]:
    """The error index as the search page reads it (one record per entry)."""
    out = []
    for e in site.errors():
        nb = site.by_num[e.num]
        out.append(
            {
                "anchor": e.anchor,
                "page": f"{e.docname}.html",
                "num": e.num,
                "title": nb.title,
                "section": e.section,
                "ename": e.ename,
                "message": ANSI_RE.sub("", e.message).strip(),
                "shown": e.shown,  # what the list shows (the message is what is matched)
                "kind": e.kind,
                "claim": f"{e.num}-{e.claim}" if e.claim else "",
                "statement": e.statement,
                "gpu_only": e.gpu_only,
            }
        )
    return out


#: Words of a section's body the index keeps (its text is also what the search page quotes as snippet).
SECTION_CHARS = 4000

#: Around each part of a section's text that is not prose (code, math, a table): the search page ranks on
#: all of it but quotes a prose sentence where one has the query's words.
NOT_PROSE = "\u2063"  # INVISIBLE SEPARATOR: not whitespace, so the text's word joining keeps it
#: After each paragraph, list item and claim statement: the search page's snippet is one sentence, and a list
#: item ("Why is my BatchNorm frozen? (§2.5)") ends with no full stop, so a sentence would run on into the
#: next item
PARAGRAPH_END = "\u2060"  # WORD JOINER: not whitespace either


def _text(node: nodes.Node) -> str:
    """``node.astext()`` without the raw HTML inside it (an icon's SVG is markup, not words), read from a
    copy with the raw nodes removed, so that the rest (a table's cells) is joined as astext() joins it."""
    if not any(node.findall(nodes.raw)):
        return node.astext()
    copy = node.deepcopy()
    for raw in list(copy.findall(nodes.raw)):
        raw.parent.remove(raw)
    return copy.astext()


def _own_text(section: nodes.section) -> str:
    """What a reader reads in ``section`` itself (not its subsections): prose, lists, tables, math, the
    visible code, and the statements of its claims (the ✔ badges); not the folded checks' code, not other
    outputs, not the claim list folded under the page title."""
    parts: list[str] = []

    def walk(node: nodes.Node) -> bool:  # False: stop (the folded claim list starts)
        if isinstance(node, nodes.section):
            return True
        if isinstance(node, nodes.raw) and node.astext().lstrip().startswith("<details>"):
            return False
        classes = node.get("classes", []) if isinstance(node, nodes.Element) else []
        if "cell_input" in classes and "tag_check" in node.parent.get("classes", []):
            return True  # the folded check's code
        if "cell_output" in classes:  # of the outputs, only the claims' statements
            for par in node.findall(nodes.paragraph):
                if "fn-claim-line" in par.get("classes", []):
                    kept = [
                        c
                        for c in par.children
                        if not isinstance(c, nodes.Element) or "fn-against" not in c["classes"]
                    ]
                    words = (_text(c) for c in kept)
                    parts.append(" ".join(words) + PARAGRAPH_END)
            return True
        if isinstance(node, (nodes.paragraph, nodes.term)):
            text = _text(node)
            if text.strip():
                parts.append(text + PARAGRAPH_END)
            return True
        if isinstance(node, (nodes.literal_block, nodes.math_block, nodes.table)):
            parts.append(f"{NOT_PROSE}{_text(node)}{NOT_PROSE}")
            return True
        for child in node.children if isinstance(node, nodes.Element) else []:
            if not walk(child):
                return False
        return True

    for child in section.children[1:]:
        if not walk(child):
            break
    text = " ".join(" ".join(parts).split())[:SECTION_CHARS]
    return text + NOT_PROSE if text.count(NOT_PROSE) % 2 else text  # one cut inside code stays marked


_LEARN_ITEM = re.compile(r"^\s*[-*]\s+(.*?)\s*\(§\s*([\d.]+)[^)]*\)\s*$")


def learn_questions(doctree: nodes.document) -> dict[str, list[str]]:
    """The page's own **What you will learn** questions by the section number they end with (``(§1.2)``):
    the questions its author wrote for each section, in a reader's words."""
    out: dict[str, list[str]] = {}
    for item in doctree.findall(nodes.list_item):
        text = " ".join(item.astext().split())
        m = _LEARN_ITEM.match("- " + text)
        if m:
            for num in re.findall(r"[\d.]+", text[text.rfind("(§") :]):
                out.setdefault(num.rstrip("."), []).append(m.group(1))
    return out


def section_records(
    env: Any,
    docnames: list[str],
    titles: dict[str, str],
    extra_asks: dict[tuple[str, str], list[str]] | None = None,
) -> list[dict[str, str]]:
    """One record per section of the given pages (``docname -> page title`` in ``titles``): its page, anchor,
    heading, parent heading, own text and the questions it answers (a list), for the search page's section
    ranking:
    the page's "What you will learn" questions that point to it and those of ``extra_asks``
    (``(notebook, section number) -> questions``, from :mod:`.asks`)."""
    out = []
    for docname in docnames:
        doctree = env.get_doctree(docname)
        asks = learn_questions(doctree)
        num = docname.rsplit("/", 1)[-1][:2]
        for (notebook, section), questions in (extra_asks or {}).items():
            if notebook == num:
                asks.setdefault(section, []).extend(questions)
        for section in doctree.findall(nodes.section):
            ids = section.get("ids", [])
            heading = section[0].astext() if section.children else ""
            if heading == "References":  # titles and links: they answer no question themselves
                continue
            parent = section.parent
            top = not isinstance(parent, nodes.section)
            out.append(
                {
                    "page": f"{docname}.html",
                    "anchor": "" if top or not ids else ids[0],
                    "title": titles.get(docname, ""),
                    "heading": heading,
                    "parent": "" if top or not isinstance(parent, nodes.section) else parent[0].astext(),
                    "text": _own_text(section),
                    # the page's title ("16 · Error gallery") is not section 16
                    "asks": [] if top else asks.get(heading.split(" ", 1)[0], []),
                }
            )
    return out


# ----------------------------------------------------------------------------- the words the page ranks on
#: The small words fieldnotes-search.js drops (its STOP), the same list.
STOP = frozenset(
    "a an and are as at be but by for from has have if in into is it its of on or not that the their then "
    "there these this to was were will with when which you your can".split()
)
_DIGITS = re.compile("[0-9]+")  # JavaScript's \d: ASCII digits only (Python's \d is every Unicode digit)
_WORD = re.compile(r"(?:[^\W_]|#)+")  # [\p{L}\p{N}#]+ (str.isalnum is letters and numbers)
_COMPOUND = re.compile(r"(?:[^\W_]|#)+(?:-(?:[^\W_]|#)+)+")


@lru_cache(maxsize=None)
def _stem(word: str) -> str:
    return word if "#" in word else porter.stem(word)


def words(text: str) -> list[str]:
    """The words the search page ranks ``text`` on, as its ``words()`` computes them in the browser:
    lower-cased, digits folded to ``#``, split on everything but letters and numbers (``_`` too), a
    hyphenated compound also as one word ("non-scalar" -> non, scalar, nonscalar), words of one character
    and :data:`STOP` dropped, each Porter-stemmed as the page stems (:mod:`.porter`). A browser test compares
    the two on every section of the site."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    n = _DIGITS.sub("#", text.lower())
    joined = [c.replace("-", "") for c in _COMPOUND.findall(n)]
    toks = _WORD.findall(n.replace("_", " ")) + joined
    # JavaScript's length counts UTF-16 units: a character beyond the BMP is two
    return [_stem(w) for w in toks if len(w.encode("utf-16-le")) > 2 and w != "#" and w not in STOP]


def section_index(records: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The section records as the search page reads them, their words counted here rather than in the
    reader's browser (where tokenising and stemming the 539 sections' text and their 5,164 questions took
    most of the first search's 0.2-0.3 s): a vocabulary, and per record ``w`` = the counts of its heading
    (none for a page's top), its page title with its parent heading, and its own text, each a list of
    vocabulary numbers where a word occurs once and ``[number, count]`` where more often, and ``q`` = each
    of its questions as a list of vocabulary numbers, in order (their text is not shown, so it is not
    shipped)."""
    tokens = [
        (
            [
                words(r["heading"]) if r["anchor"] else [],
                words(f"{r['title']} {r['parent']}"),
                words(r["text"]),
            ],
            [words(q) for q in r["asks"]],
        )
        for r in records
    ]
    # the commonest words get the smallest numbers (8 % fewer characters than numbered as first seen)
    freq = Counter(w for fields, asks in tokens for ws in (*fields, *asks) for w in ws)
    vocab = {w: i for i, (w, _) in enumerate(freq.most_common())}

    def counted(ws: list[str]) -> list[int | list[int]]:
        return [vocab[w] if n == 1 else [vocab[w], n] for w, n in Counter(ws).items()]

    out = []
    for r, (fields, asks) in zip(records, tokens):
        rest = {k: v for k, v in r.items() if k != "asks"}
        out.append({**rest, "w": [counted(f) for f in fields], "q": [[vocab[w] for w in q] for q in asks]})
    return list(vocab), out
