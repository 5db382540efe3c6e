"""``fieldnotes-stamp``: the verification box at the top of each notebook page."""

from __future__ import annotations

from docutils import nodes

from ..data import stamp
from ..docnodes import _Directive, para, xref


class StampDirective(_Directive):
    """The admonition at the top of a notebook page (inserted at source-read)."""

    def run(self) -> list[nodes.Node]:
        nb = self.site.by_doc[self.docname]
        s = self.site
        # One line until opened (the first lesson starts on screen one): what was verified, and when.
        box = nodes.container(classes=["fn-stamp"])
        cids = [e.cid for e in nb.skipped]
        gpu_only = gpu_clause(len(cids), *s.matrix.gpu_outcome(nb.path.stem, cids))
        box += nodes.raw("", '<details class="fn-stamp-more"><summary>', format="html")
        box += nodes.inline(
            "",
            f"✔ Verified notebook: {len(nb.ledger)} claims asserted and re-checked by the test suite"
            f"{gpu_only}; {stamp(nb.meta)}. ",
        )
        # what opening the box shows, drawn as a link would be: not read as the sentence's last words
        box += nodes.inline("", "Versions, GPU, Download, Colab", classes=["fn-stamp-open"])
        box += nodes.raw("", "</summary>", format="html")
        if nb.holds_on:
            box += para(
                f"Version matrix: {nb.holds_on}. ",
                xref(self.docname, f"claims-{nb.num}", "Per claim"),
                " · ",
                xref(self.docname, "/changes", "what changed", "doc"),
                ".",
            )
        url = self.env.config.fieldnotes_repo_url
        slug = url.split("github.com/")[-1]
        colab = f"https://colab.research.google.com/github/{slug}/blob/main/notebooks/{nb.path.name}"
        download = (
            f'<a class="reference download" href="../_sources/notebooks/{nb.path.name}" '
            f'download="{nb.path.name}"><code class="xref download docutils literal notranslate">'
            f"{nb.path.name}</code></a>"
        )
        box += para(
            "Download: ",
            nodes.raw("", download, format="html"),
            " · ",
            nodes.reference("", "open in Colab", refuri=colab),
            " (Colab reads it from ",
            nodes.literal(slug, slug),
            ", the repository named in the project's ",
            nodes.literal("pyproject.toml", "pyproject.toml"),
            "; its first code cell installs the project's ",
            nodes.literal("helpers", "helpers"),
            " from there)",
        )
        zh = [t["zh"] for t in s.terms if nb.num in t["notebooks"].split()]
        if zh:
            words = nodes.inline("", "、".join(zh), classes=["fn-zh"])
            words["lang"] = "zh"
            box += para("关键词 (keywords): ", words)
        box += nodes.raw("", "</details>", format="html")
        return [box]


def gpu_clause(
    n: int, passed: int, stale: bool, skipped: dict[str, int] | None = None, failed: int = 0
) -> str:
    """What the stamp says of the ``n`` claims the CPU runner skips: how many of them ``passed`` on a GPU
    runner (``stale``: only in runs of an earlier version of the page); of the others, how many the
    current GPU run skipped too, for each reason it gave (``skipped``: reason -> count, e.g. a claim that
    needs two GPUs), how many ``failed`` there, and how many never ran there."""
    skipped = skipped or {}
    if not 0 <= passed <= n:
        raise ValueError(f"passed must be between 0 and n={n}, got {passed}")
    if failed < 0 or any(k <= 0 for k in skipped.values()) or passed + failed + sum(skipped.values()) > n:
        raise ValueError(
            f"skipped counts must be positive, failed not negative, and with passed at most n={n}: "
            f"skipped {skipped}, failed {failed}"
        )
    if not n:
        return ""
    verb = "needs" if n == 1 else "need"
    unrun = n - passed - failed - sum(skipped.values())
    if not (passed or failed or skipped):
        return f" (and {n} that {verb} CUDA, not yet run on a GPU runner)"
    parts = []
    if passed:
        where = "a GPU runner" + (", recorded for an earlier revision of this page" if stale else "")
        done = f"{passed} passed" if passed < n else "passed" if n == 1 else "all passed"
        parts.append(f"{done} on {where}")
    on = "there" if passed else "on a GPU runner"  # the runner named once, in the first part
    if failed:
        parts.append(f"{failed} failed {on}")
        on = "there"
    for why, k in skipped.items():
        short = why if len(why) <= 80 else why[:79] + "…"
        parts.append(f"{k} skipped {on}: {short}")
        on = "there"
    if unrun:
        parts.append(f"{unrun} not yet run there")
    return f" (and {n} that {verb} CUDA: " + "; ".join(parts) + ")"
