"""The version matrix as the site shows it: which claims hold on which torch release and GPU, and what
changed between releases (read from the verification records of tools.notebooks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docutils import nodes

from tools.notebooks import (
    VerificationRecord,
    version_key,
)

from .base import RUNTIME_PINS, SYMBOL, minor

if TYPE_CHECKING:
    from .data import SiteData


def env_note(rec: VerificationRecord) -> str:
    """The notebook packages a record ran at other versions than the lock, e.g. "numpy 1.26.4"."""
    return ", ".join(f"{k} {rec.pins[k].split(' ')[0]}" for k in RUNTIME_PINS if k in rec.pins)


class Matrix:
    """The verification records, read for the pages: CPU records by torch version, and GPU runs."""

    def __init__(self, records: list[VerificationRecord], current: dict[str, str] | None = None):
        self.cpu = [r for r in records if not r.is_gpu]
        self.gpu = [r for r in records if r.is_gpu]
        self.current = current or {}  # notebook stem -> source hash of the notebook as it is now

    def stale(self, rec: VerificationRecord, stem: str) -> bool:
        """The record ran an earlier revision of this notebook (its source hash differs)."""
        recorded = rec.notebooks.get(stem, {}).get("source_hash")
        return stem in self.current and recorded != self.current[stem]

    def gpu_outcome(self, stem: str, cids: list[str]) -> tuple[int, bool, dict[str, int], int]:
        """What the GPU runs made of ``cids``: how many passed in some run; whether every run that passed
        one had an earlier revision of the notebook; and, of the others as a current run left them, how
        many it skipped for each reason it gave (e.g. {"needs 2 GPUs": 1}) and how many failed or were not
        reached there. A claim no current run has (newer than the runs) is in neither; a failure outranks
        a skip. The arguments of pages.stamp.gpu_clause, in its order."""
        passed, passing_runs, reasons, failed = 0, [], {}, 0
        for cid in cids:
            results = [(r, res) for r, res in self.results(stem, cid, self.gpu) if res]
            runs = [r for r, res in results if res.result == "pass"]
            if runs:
                passed += 1
                passing_runs += runs
                continue
            current = [res for r, res in results if not self.stale(r, stem)]
            if any(res.result in ("fail", "not reached") for res in current):
                failed += 1
            elif current:
                why = next((res.detail for res in current if res.detail), "") or "no reason given"
                reasons[why] = reasons.get(why, 0) + 1
        stale = bool(passing_runs) and all(self.stale(r, stem) for r in passing_runs)
        return passed, stale, reasons, failed

    def results(self, stem: str, cid: str, records: list[VerificationRecord] | None = None) -> list:
        return [(r, r.result(stem, cid)) for r in (self.cpu if records is None else records)]

    def grid(self, stem: str, cid: str) -> nodes.Node:
        """A caniuse-style row of cells, one per CPU record (oldest left), with the result as a tooltip."""
        if not self.cpu:
            return nodes.Text("not recorded")
        cells = []
        for rec, res in self.results(stem, cid):
            kind = "nr" if res is None or rec.status != "ran" else res.result.replace(" ", "-")
            why = rec.status if rec.status != "ran" else (res.detail if res and res.detail else "")
            word = "could not run" if rec.status != "ran" else (res.result if res else "not recorded")
            tip = f"torch {rec.torch}: {word}" + (f" ({why[:200]})" if why else "")
            if self.stale(rec, stem):
                kind += " fn-stale"
                tip += " [recorded for an earlier revision of this notebook]"
            tip = tip.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            cells.append(f'<span class="fn-v fn-{kind}" title="{tip}" aria-label="{tip}"></span>')
        return nodes.raw("", f'<span class="fn-grid">{"".join(cells)}</span>', format="html")

    def gpu_cell(self, stem: str, cid: str) -> str:
        if not self.gpu:
            return "not run"
        return " ".join(SYMBOL[res.result if res else None] for _, res in self.results(stem, cid, self.gpu))

    def header(self) -> str:
        if not self.cpu:
            return "torch versions"
        return f"torch {minor(self.cpu[0].torch)} → {minor(self.cpu[-1].torch)}"

    @staticmethod
    def tally(rec: VerificationRecord, stem: str, cids: list[str]) -> tuple[int, int]:
        """(passed, tried) of a notebook's claims in one record; skipped or unrecorded: not tried."""
        tried = [r for r in (rec.result(stem, c) for c in cids) if r is not None and r.result != "skipped"]
        return sum(r.result == "pass" for r in tried), len(tried)

    def _holding(self, stem: str, cids: list[str]) -> list[str]:
        """The recorded CPU versions (minor) on which every tried claim of a notebook held."""
        return [
            minor(rec.torch)
            for rec in self.cpu
            if rec.status == "ran" and (t := self.tally(rec, stem, cids))[1] and t[0] == t[1]
        ]

    def cpu_span(self, stem: str, cids: list[str]) -> str:
        """The recorded CPU versions on which every claim of a notebook held, short ("torch 2.7–2.15"), and
        whether those records ran an earlier revision of the notebook (:meth:`stale_note`)."""
        full = self._holding(stem, cids)
        if not full:
            return "none recorded"
        return f"torch {_ranges(full, [minor(r.torch) for r in self.cpu])}{self.stale_note(stem, full)}"

    def stale_note(self, stem: str, versions: list[str]) -> str:
        """ " (recorded for an earlier revision of the notebook)" when every CPU record of ``versions``
        (minor) ran an earlier revision of the notebook than the page shows, " (k of these n runs were of an
        earlier revision of the notebook)" when some did, else ""."""
        ran = [
            r for r in self.cpu if r.status == "ran" and stem in r.notebooks and minor(r.torch) in versions
        ]
        stale = sum(self.stale(r, stem) for r in ran)
        if not stale:
            return ""
        if stale == len(ran):
            return " (recorded for an earlier revision of the notebook)"
        return f" ({stale} of these {len(ran)} runs were of an earlier revision of the notebook)"

    def holds_on(self, stem: str, cids: list[str]) -> str:
        """One line: the versions on which every claim of a notebook held, and the others' counts."""
        if not self.cpu:
            return ""
        full = self._holding(stem, cids)
        partial = []
        for rec in self.cpu:
            if minor(rec.torch) not in full:
                passed, tried = self.tally(rec, stem, cids)
                partial.append(f"{minor(rec.torch)}: {passed} of {tried or len(cids)}")
        text = (
            f"every claim that runs on a CPU holds on {self.cpu_span(stem, cids)}"
            if full
            else "no release holds every claim that runs on a CPU"
        )
        if partial:  # (an API a release lacks stops the claims after it: they are "not reached" there)
            text += f"; on other releases fewer hold ({', '.join(partial)})"
        if self.gpu:
            text += "; GPU: " + "; ".join(self.gpu_summary(stem, cids))
        return text

    def gpu_summary(self, stem: str, cids: list[str], short: bool = False) -> list[str]:
        """Per GPU record, how many of the notebook's claims held there: "NVIDIA H200, torch 2.11: 23 of 24
        hold", or "all 21 that ran hold; 3 did not run there" when some were skipped there or are newer than
        the record (``short``: "H200, torch 2.11: …")."""
        out = []
        for rec in self.gpu:
            passed, tried = self.tally(rec, stem, cids)
            count = f"all {passed}" if tried and passed == tried else f"{passed} of {tried}"
            # skipped there, or added to the page since
            results = [rec.result(stem, c) for c in cids]
            skipped = sum(r is not None and r.result == "skipped" for r in results)
            newer = sum(r is None for r in results)  # added to the page since the run
            word = f"{count} that ran hold" if skipped or newer else f"{count} hold"
            word += f"; {skipped} skipped there" if skipped else ""
            word += f"; {newer} added since" if newer else ""
            stale = " (recorded for an earlier revision)" if self.stale(rec, stem) else ""
            device = rec.device.removeprefix("NVIDIA ") if short else rec.device
            out.append(f"{device}, torch {minor(rec.torch)}: {word}{stale}")
        return out


def _ranges(chosen: list[str], order: list[str]) -> str:
    """["2.4", "2.5", "2.6", "2.9"] in order 2.0..2.15 -> "2.4–2.6, 2.9"."""
    out, run = [], []
    for v in order:
        if v in chosen:
            run.append(v)
        elif run:
            out.append(run)
            run = []
    if run:
        out.append(run)
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in out)


def changes(site: SiteData) -> list[dict]:
    """Every claim whose behaviour changed between torch versions: results that differ between recorded
    versions, and checks that branch on the version (since("X.Y")), newest change first."""
    found = []
    matrix = site.matrix
    order = matrix.cpu
    for nb in site.notebooks:
        for e in nb.ledger + nb.skipped:
            seq = [(r, res) for r, res in matrix.results(nb.stem, e.cid) if r.status == "ran" and res]
            # a claim "not reached" was not tried (an earlier cell failed): compare only pass and fail
            tried = [(r, res) for r, res in seq if res.result in ("pass", "fail")]
            for (r0, a), (r1, b) in zip(tried, tried[1:]):
                if a.result != b.result:
                    pinned = order.index(r1) == order.index(r0) + 1 and minor(r0.torch) != minor(r1.torch)
                    found.append(
                        {
                            "version": r1.torch,
                            "nb": nb,
                            "entry": e,
                            "kind": "result",
                            "before": (r0, a),
                            "after": (r1, b),
                            "pinned": pinned,
                        }
                    )
            for v in nb.branches.get(e.cid, []):
                found.append({"version": v, "nb": nb, "entry": e, "kind": "branch", "pinned": True})
    return sorted(
        found,
        key=lambda f: (version_key(f["version"]), f["nb"].num, int(f["entry"].cid[1:])),
        reverse=True,
    )


def not_reached(site: SiteData) -> list[tuple[str, str, int, str]]:
    """(torch version, notebook number, how many claims, the first reason) for each record and notebook."""
    out = []
    for rec in reversed(site.matrix.cpu):
        for nb in site.notebooks:
            details = [
                res.detail
                for res in (rec.result(nb.stem, e.cid) for e in nb.ledger + nb.skipped)
                if res is not None and res.result == "not reached"
            ]
            if details:
                out.append((rec.torch, nb.num, len(details), details[0]))
    return out
