"""``fieldnotes-changes``: what changed between torch releases, newest first."""

from __future__ import annotations

from typing import Any

from docutils import nodes

from ..base import RELEASE_URL, SYMBOL, minor
from ..docnodes import _Directive, emph, para
from ..records import changes, env_note, not_reached


class ChangesDirective(_Directive):
    """What changed between torch versions, newest first, one section per minor release."""

    def run(self) -> list[nodes.Node]:
        s = self.site
        items = changes(s)
        out: list[nodes.Node] = []
        if not items:
            out.append(para("No claim's result differs between the recorded versions."))
        sections: dict[str, nodes.section] = {}
        for f in items:
            ver = minor(f["version"])
            if ver not in sections:
                sec = nodes.section(ids=[f"torch-{ver.replace('.', '-')}"])
                sec += nodes.title("", f"torch {ver}")
                url = RELEASE_URL.format(f"{ver}.0")
                sec += para("Release notes: ", nodes.reference("", f"v{ver}.0", refuri=url))
                sec += nodes.bullet_list()
                sections[ver] = sec
                out.append(sec)
            nb, e = f["nb"], f["entry"]
            item = para(self.claim_link(nb.num, e.cid), " — ", e.statement)
            if f["kind"] == "branch":
                item += emph(f" (asserted per version: the check branches on torch ≥ {f['version']})")
            else:
                (r0, a), (r1, b) = f["before"], f["after"]
                item += nodes.Text(" — ")
                item += self._result(b, r1.torch)
                item += nodes.Text("; ")
                item += self._result(a, r0.torch)
                if not f["pinned"]:
                    item += nodes.Text(" (between these recorded versions; not pinned to one release)")
                off = [f"{r.torch} ran with {env_note(r)}" for r in (r0, r1) if env_note(r)]
                if off:
                    item += emph(
                        f" (not only torch differs: {'; '.join(off)} instead of the lock's versions)"
                    )
            sections[ver][-1] += nodes.list_item("", item)
        unreached = not_reached(s)
        if unreached:
            sec = nodes.section(ids=["claims-not-reached"])
            sec += nodes.title("", "Claims not reached")
            sec += para(
                "Where an earlier cell failed (often an import of an API that is newer than the release), "
                "the claims after it were not tried; they are left out above and counted here."
            )
            items_list = nodes.bullet_list()
            for v, num, n, why in unreached:
                items_list += nodes.list_item(
                    "",
                    para(
                        f"torch {v} · {num}: {n} claim{'s' * (n > 1)} not reached (",
                        nodes.literal(why, why),
                        ")",
                    ),
                )
            sec += items_list
            out.append(sec)
        return out

    @staticmethod
    def _result(res: Any, version: str) -> list[nodes.Node]:
        out: list[nodes.Node] = [nodes.Text(f"{SYMBOL[res.result]} {res.result} on {version}")]
        if res.detail:
            detail = " ".join(res.detail.split())[:160]
            out += [nodes.Text(": "), nodes.literal(detail, detail)]
        return out
