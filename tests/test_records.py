"""The verification record (tools.notebooks) and how the site reads it (site/fieldnotes_site)."""

from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from fieldnotes_site.data import Notebook
from fieldnotes_site.notebook_page import gpu_outputs
from fieldnotes_site.records import Matrix, _ranges, changes, not_reached
from fieldnotes_site.sources import version_branches
from helpers.versions import parse_version, since
from tools.notebooks import (
    ClaimResult,
    VerificationRecord,
    bound_names,
    claim_results,
    load_records,
    version_key,
)

LINE = "✔ {} s — against a formula: f"
SKIP = "⊘ {} s — against a formula: f — skipped: needs CUDA"


def _nb(*cells):
    """A notebook whose code cells print the given stdout (or carry an error when a cell is an exception)."""
    nb = nbformat.v4.new_notebook()
    for out in cells:
        cell = nbformat.v4.new_code_cell("pass")
        if isinstance(out, BaseException):
            cell.outputs = [
                nbformat.v4.new_output("error", ename=type(out).__name__, evalue=str(out), traceback=[])
            ]
        elif out:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=out)]
        nb.cells.append(cell)
    return nb


def test_claim_results_pass_fail_not_reached_skipped():
    stored = _nb(
        LINE.format("C1"), LINE.format("C2"), LINE.format("C3") + "\n" + LINE.format("C4"), SKIP.format("C5")
    )
    run = _nb(
        LINE.format("C1"), RuntimeError("boom"), NameError("name 'x' is not defined"), SKIP.format("C5")
    )
    res = claim_results(stored, run)
    assert res["C1"] == ClaimResult("pass")
    assert res["C2"] == ClaimResult("fail", "RuntimeError: boom")
    assert res["C3"].result == res["C4"].result == "not reached" and "cell 1" in res["C3"].detail
    assert res["C5"] == ClaimResult("skipped", "needs CUDA")


def test_a_claim_not_reached_names_the_failed_cell_that_binds_its_missing_name():
    stored = _nb("", "", "", LINE.format("C1"), LINE.format("C2"))
    run = _nb(NameError("name 'FlopCounterMode' is not defined"), "", AttributeError("no nbytes"), None, None)
    run.cells[0].source = "lin = make()\nforward = FlopCounterMode()"
    run.cells[2].source = "import numpy as np\nfor step in range(3):\n    peak, (a, b) = run(step)"
    run.cells[3].outputs = [
        nbformat.v4.new_output("error", ename="NameError", evalue="name 'peak' is not defined")
    ]
    run.cells[4].outputs = [
        nbformat.v4.new_output("error", ename="NameError", evalue="name 'zz' is not defined")
    ]
    res = claim_results(stored, run)
    assert res["C1"] == ClaimResult("not reached", "needs cell 2, which failed (AttributeError: no nbytes)")
    assert res["C2"].result == "not reached" and res["C2"].detail.startswith(
        "needs cell 0, which failed (NameError"
    )


def test_bound_names_are_the_cell_s_own_bindings():
    src = "%matplotlib inline\nimport a.b as c, d.e\nfrom f import g\nx, (y, z) = 1, (2, 3)\nw += 1\n"
    src += "def h(q):\n    inner = q\nclass K: pass\nfor i in []: pass\nwith open(p) as fh: pass\n"
    src += "try:\n    pass\nexcept E as err:\n    pass\nsq = [j for j in range(3)]"
    assert bound_names(src) == {"c", "d", "g", "x", "y", "z", "w", "h", "K", "i", "fh", "err", "sq"}
    assert bound_names("def broken(:") == set()


def test_claim_results_another_claims_failure_leaves_the_rest_of_its_cell_not_reached():
    stored = _nb(LINE.format("C1") + "\n" + LINE.format("C2") + "\n" + LINE.format("C3"))
    run = _nb(LINE.format("C1"))
    run.cells[0].outputs.append(
        nbformat.v4.new_output("error", ename="ClaimError", evalue="C2 FAILED: s", traceback=[])
    )
    res = claim_results(stored, run)
    assert [res[c].result for c in ("C1", "C2", "C3")] == ["pass", "fail", "not reached"]
    assert res["C3"].detail == "its cell stopped at C2, which failed"


def test_error_details_name_no_machine_path():
    import sys
    from pathlib import Path

    err = RuntimeError(f"{sys.prefix}/bin/python and {Path.home()}/x failed")
    res = claim_results(_nb(LINE.format("C1")), _nb(err))
    assert res["C1"].detail == "RuntimeError: <env>/bin/python and ~/x failed"


def test_claim_results_first_failure_is_a_fail_even_as_name_error():
    res = claim_results(_nb(LINE.format("C1")), _nb(NameError("name 'torch' is not defined")))
    assert res["C1"].result == "fail"


def test_claim_results_without_a_run_and_silent_cells():
    stored = _nb(LINE.format("C1"))
    assert claim_results(stored, None, "DeadKernelError: died")["C1"] == ClaimResult(
        "not reached", "DeadKernelError: died"
    )
    assert claim_results(stored, _nb(""))["C1"].result == "fail"
    with pytest.raises(ValueError, match="cells"):
        claim_results(stored, _nb("", ""))


def _record(version, results, device="cpu", status="ran"):
    rec = VerificationRecord(
        label=f"torch-{version}-{device}", torch=version, device=device, date="2026-11-23", status=status
    )
    rec.set_results("01_x", {cid: ClaimResult(r) for cid, r in results.items()})
    rec.notebooks["01_x"] = {"source_hash": "abc"}
    return rec


def test_record_roundtrip_validation_and_order(tmp_path):
    rec = _record("2.9.1", {"C1": "pass", "C2": "fail"})
    assert VerificationRecord.from_json(rec.to_json()) == rec
    assert rec.counts() == {"pass": 1, "fail": 1, "not reached": 0, "skipped": 0}
    for v in ("2.13.0", "2.9.1", "2.10.0"):
        _record(v, {"C1": "pass"}).save(tmp_path)
    _record("2.11.0", {"C1": "pass"}, device="h100").save(tmp_path)
    assert [r.label for r in load_records(tmp_path)] == [
        "torch-2.9.1-cpu",
        "torch-2.10.0-cpu",
        "torch-2.13.0-cpu",
        "torch-2.11.0-h100",
    ]
    with pytest.raises(ValueError, match="result"):
        ClaimResult("passed")
    with pytest.raises(ValueError, match="label"):
        VerificationRecord(label="Torch 2", torch="2.1.0", device="cpu", date="x")
    with pytest.raises(ValueError, match="schema"):
        VerificationRecord.from_json('{"schema": 99}')
    assert version_key("2.15.0+cu132") == (2, 15, 0)


def test_versions_helper():
    assert parse_version("2.15.0+cu132") == (2, 15, 0) and parse_version("2.9") == (2, 9, 0)
    assert since("2.0") and not since("99.0")
    with pytest.raises(ValueError, match="version"):
        since("latest")
    for typo in ("2.1O", "2.15rc1", "2.15.0+cpu", 2.15):
        with pytest.raises(ValueError, match="plain version"):
            since(typo)


def test_version_branches_follow_one_assignment():
    src = """expected = ("addmm: " if since("2.15") else "") + "mat1"
ok = other and since("2.12")
claim("C1", "s", ok, against="formula: f")
claim_raises("C2", "s", f, RuntimeError, expected, against="formula: f")
claim("C3", "s", True, against="formula: f")
if since("2.9"):
    msg = "Guard failed"
elif since("2.3"):
    msg = "Expected input"
else:
    msg = "specialized"
claim_raises("C4", "s", f, RuntimeError, msg, against="formula: f")
"""
    assert version_branches(src) == {"C1": ["2.12"], "C2": ["2.15"], "C4": ["2.3", "2.9"]}


def test_matrix_grid_holds_on_and_changes():
    recs = [
        _record("2.10.0", {"C1": "fail", "C2": "pass"}),
        _record("2.11.0", {"C1": "pass", "C2": "pass"}),
        _record("2.12.1", {"C1": "pass", "C2": "pass"}),
    ]
    m = Matrix(recs, {"01_x": "abc"})
    assert m.header() == "torch 2.10 → 2.12"
    grid = m.grid("01_x", "C1").astext()
    assert grid.count("fn-pass") == 2 and "fn-fail" in grid
    assert m.holds_on("01_x", ["C1", "C2"]).startswith(
        "every claim that runs on a CPU holds on torch 2.11–2.12; on other releases fewer hold (2.10: 1 of 2)"
    )
    from helpers.claims import LedgerEntry

    nb = Notebook(
        Path("01_x.ipynb"),
        {},
        "01 · x",
        [LedgerEntry("C1", "s", "formula", "f"), LedgerEntry("C2", "t", "formula", "f")],
        [],
        branches={"C2": ["2.12"]},
    )
    found = changes(SimpleNamespace(matrix=m, notebooks=[nb]))
    assert [(f["entry"].cid, f["version"], f["kind"], f["pinned"]) for f in found] == [
        ("C2", "2.12", "branch", True),
        ("C1", "2.11.0", "result", True),
    ]
    assert "fn-stale" in Matrix(recs, {"01_x": "changed"}).grid("01_x", "C1").astext()
    # the CPU span says when the records that make it ran an earlier revision of the notebook
    assert m.cpu_span("01_x", ["C1", "C2"]) == "torch 2.11–2.12"
    assert (
        Matrix(recs, {"01_x": "changed"}).cpu_span("01_x", ["C2"])
        == "torch 2.10–2.12 (recorded for an earlier revision of the notebook)"
    )
    recs[2].notebooks["01_x"]["source_hash"] = "changed"  # one record ran the current revision
    assert (
        Matrix(recs, {"01_x": "changed"}).stale_note("01_x", ["2.10", "2.11", "2.12"])
        == " (2 of these 3 runs were of an earlier revision of the notebook)"
    )
    # only the releases the span names count: 2.10 (stale) fails C1, so the span is 2.11–2.12
    assert Matrix(recs, {"01_x": "changed"}).cpu_span("01_x", ["C1", "C2"]) == (
        "torch 2.11–2.12 (1 of these 2 runs were of an earlier revision of the notebook)"
    )
    assert _ranges(["2.4", "2.5", "2.9"], ["2.3", "2.4", "2.5", "2.6", "2.9"]) == "2.4–2.5, 2.9"


def test_committed_records_are_valid_and_name_no_machine_path():
    import re
    from pathlib import Path

    from tools.notebooks import RECORD_DIR

    for path in sorted(RECORD_DIR.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        VerificationRecord.from_json(text)  # the schema holds
        assert not re.search(r"(?<![\w.<])/(?:root|home|Users|work|tmp)/", text), (
            f"{path.name}: a machine path"
        )
        assert str(Path.home()) not in text or len(str(Path.home())) <= 1


def test_not_reached_is_not_a_change_but_is_counted():
    from helpers.claims import LedgerEntry

    recs = [_record("2.0.1", {"C1": "not reached"}), _record("2.1.2", {"C1": "pass"})]
    recs[0].claims["01_x"]["C1"]["detail"] = "needs cell 1, which failed"
    nb = Notebook(Path("01_x.ipynb"), {}, "01 · x", [LedgerEntry("C1", "s", "formula", "f")], [])
    site = SimpleNamespace(matrix=Matrix(recs, {"01_x": "abc"}), notebooks=[nb])
    assert changes(site) == []
    assert not_reached(site) == [("2.0.1", "01", 1, "needs cell 1, which failed")]


def test_skipped_claim_outputs_keep_what_a_gpu_cell_printed():
    """A GPU run keeps what the cells the CPU runner skipped printed (C2 and C3 share a cell)."""
    from tools.notebooks import OUTPUT_CHARS, skipped_claim_outputs

    stored = _nb(LINE.format("C1"), SKIP.format("C2") + "\n" + SKIP.format("C3"), SKIP.format("C4"))
    gpu_text = "fp32: 50.6 TFLOP/s\n\x1b[31mred\x1b[0m\n" + LINE.format("C2") + "\n" + LINE.format("C3")
    run = _nb("numbers\n" + LINE.format("C1"), gpu_text, "x" * (OUTPUT_CHARS + 10))
    out = skipped_claim_outputs(stored, run)
    assert set(out) == {"C2", "C3", "C4"}  # C1 ran on the CPU runner too: its output is stored already
    assert out["C2"] == out["C3"] and out["C2"].startswith("fp32: 50.6") and "\x1b" not in out["C2"]
    assert len(out["C4"]) == OUTPUT_CHARS and out["C4"].startswith("…")
    with pytest.raises(ValueError):
        skipped_claim_outputs(stored, _nb("only one cell"))


def test_gpu_outputs_one_block_per_cell_and_record():

    rec = VerificationRecord(
        "torch-2.11.0-cuda-h200", "2.11.0", "NVIDIA H200", "2026-11-28", build="2.11.0+cu130"
    )
    rec.outputs["10_x"] = {"C2": "fp16 ```x``` 610 TFLOP/s", "C3": "fp16 ```x``` 610 TFLOP/s", "C9": "gone"}
    rec.notebooks["10_x"] = {"source_hash": "old"}
    blocks = gpu_outputs(Matrix([rec], {"10_x": "new"}), "10_x", {"C2": 4, "C3": 4})
    assert list(blocks) == [4]  # C9 is no longer in the notebook: not shown
    text = blocks[4]
    assert text.count("this check printed") == 1 and "NVIDIA H200, torch 2.11.0+cu130, 2026-11-28" in text
    assert "earlier version of this page" in text  # the record ran other sources than the page shows
    assert "````text" in text  # the fence is longer than any run of backticks in the output
    assert gpu_outputs(Matrix([]), "10_x", {"C2": 4}) == {}


def test_gpu_summary_and_cpu_span():
    cpu = [VerificationRecord(f"torch-2.{m}.0-cpu", f"2.{m}.0", "cpu", "d") for m in (9, 10, 11)]
    for rec, res in zip(cpu, ("fail", "pass", "pass"), strict=True):
        rec.set_results("00_x", {"C1": ClaimResult(res), "C2": ClaimResult("skipped", "needs CUDA")})
    gpu = VerificationRecord("torch-2.11.0-cuda-h200", "2.11.0", "NVIDIA H200", "d")
    gpu.set_results("00_x", {"C1": ClaimResult("pass"), "C2": ClaimResult("fail", "boom")})
    m = Matrix([*cpu, gpu])
    assert m.cpu_span("00_x", ["C1", "C2"]) == "torch 2.10–2.11"
    assert m.gpu_summary("00_x", ["C1", "C2"]) == ["NVIDIA H200, torch 2.11: 1 of 2 hold"]
    gpu.set_results("00_x", {"C1": ClaimResult("pass"), "C2": ClaimResult("pass")})
    assert m.gpu_summary("00_x", ["C1", "C2"], short=True) == ["H200, torch 2.11: all 2 hold"]
    assert m.gpu_summary("00_x", ["C1", "C2", "C3"]) == [
        "NVIDIA H200, torch 2.11: all 2 that ran hold; 1 added since"
    ]
    gpu.set_results("00_x", {"C1": ClaimResult("pass"), "C2": ClaimResult("skipped", "needs 2 GPUs")})
    assert m.gpu_summary("00_x", ["C1", "C2", "C3"]) == [
        "NVIDIA H200, torch 2.11: all 1 that ran hold; 1 skipped there; 1 added since"
    ]
    assert Matrix(cpu).gpu_summary("00_x", ["C1"]) == []


def test_gpu_outcome_counts_passes_and_the_skips_and_failures_of_the_current_run():
    gpu = VerificationRecord("torch-2.11.0-cuda-h200", "2.11.0", "NVIDIA H200", "d")
    gpu.set_results(
        "13_x",
        {
            "C1": ClaimResult("pass"),
            "C2": ClaimResult("skipped", "needs 2 GPUs"),
            "C3": ClaimResult("skipped", "needs 2 GPUs"),
            "C4": ClaimResult("fail", "boom"),
        },
    )
    gpu.notebooks["13_x"] = {"source_hash": "abc"}
    cids = ["C1", "C2", "C3", "C4", "C5"]
    assert Matrix([gpu], {"13_x": "abc"}).gpu_outcome("13_x", cids) == (1, False, {"needs 2 GPUs": 2}, 1)
    # a skip or failure in a run of an earlier version of the page is not today's outcome; its pass counts,
    # marked as of an earlier version
    assert Matrix([gpu], {"13_x": "changed"}).gpu_outcome("13_x", cids) == (1, True, {}, 0)
    # a claim another GPU run passed is neither skipped nor failed
    other = VerificationRecord("torch-2.12.0-cuda-h100", "2.12.0", "NVIDIA H100", "d")
    other.set_results("13_x", {"C2": ClaimResult("pass"), "C4": ClaimResult("pass")})
    other.notebooks["13_x"] = {"source_hash": "abc"}
    assert Matrix([gpu, other], {"13_x": "abc"}).gpu_outcome("13_x", cids) == (
        3,
        False,
        {"needs 2 GPUs": 1},
        0,
    )


def test_output_mismatches_compare_as_nbval_does():
    """A changed printed value is a mismatch; an ignore-output cell, a changed figure, an object address
    (nbval's sanitizer) and a line printed in two chunks are not."""
    from tools.notebooks import output_mismatches

    stored = _nb("a = 1\n", "t 0.51\n", "at 0x7f00aa11bb22\n", "ab\n", "")
    stored.cells[1].metadata["tags"] = ["nbval-ignore-output"]
    stored.cells[4].outputs = [nbformat.v4.new_output("display_data", data={"image/png": "AAAA"})]
    run = nbformat.reads(nbformat.writes(stored), 4)  # an independent copy
    assert output_mismatches(stored, run) == []
    run.cells[0].outputs[0]["text"] = "a = 2\n"
    run.cells[1].outputs[0]["text"] = "t 0.49\n"
    run.cells[2].outputs[0]["text"] = "at 0x55aa0033cc44\n"
    run.cells[3].outputs = [
        nbformat.v4.new_output("stream", name="stdout", text="a"),
        nbformat.v4.new_output("stream", name="stdout", text="b\n"),
    ]
    run.cells[4].outputs[0]["data"]["image/png"] = "BBBB"
    assert output_mismatches(stored, run) == [0]
    stored.cells[0].source = "# NBVAL_IGNORE_OUTPUT\nprint(a)"
    assert output_mismatches(stored, run) == []
    with pytest.raises(ValueError, match="stored notebook's cells"):
        output_mismatches(stored, _nb("x"))


def test_a_long_claim_error_keeps_its_end():
    """A record keeps the start (the statement) and the end (why it failed) of a long error."""
    from tools.notebooks import shorten

    text = "ClaimError: C24 FAILED: " + "statement " * 40 + "detail: log had 5 lines"
    short = shorten(text, 300)
    assert len(short) == 300 and short.startswith("ClaimError: C24") and short.endswith("5 lines")
    assert shorten("short", 300) == "short"
    with pytest.raises(ValueError):
        shorten(text, 5)


def test_current_records_show_the_stored_outputs_where_every_claim_holds():
    """Same stored outputs across the releases we verify: where a record ran a notebook's current sources
    and every claim held (or was skipped), nbval would find no cell printing differently."""
    from tools.notebooks import notebook_paths, read, source_hash

    current = {p.stem: source_hash(read(p)) for p in notebook_paths()}
    checked = 0
    for rec in load_records():
        for stem, info in rec.notebooks.items():
            if "output_mismatches" not in info or info.get("source_hash") != current.get(stem):
                continue
            if any(r["result"] in ("fail", "not reached") for r in rec.claims.get(stem, {}).values()):
                continue
            checked += 1
            assert info["output_mismatches"] == [], f"{rec.label} {stem}: cells {info['output_mismatches']}"
    assert checked >= 17, f"only {checked} current notebook runs carry output comparisons"


def test_matrix_gives_an_older_torch_the_last_opacus_that_imports_there():
    """opacus 1.5.4 declares torch>=2.0 but needs torch 2.4 (meta-pytorch/opacus#769): the matrix gives
    torch 2.0-2.3 ``opacus<1.5.4`` in every way it installs, and torch 2.4 the lock's (or an unpinned) one."""
    from tools import matrix

    for how in (matrix.LOCK_PINS, matrix.TORCH_DEPS_FREE, matrix.FALLBACK):
        old = [r for r in matrix._requirements("2.3.1", how) if r.startswith("opacus")]
        new = [r for r in matrix._requirements("2.4.1", how) if r.startswith("opacus")]
        assert old == ["opacus<1.5.4"], (how, old)
        assert len(new) == 1 and "1.5.4" not in new[0], (how, new)
    assert [r for r in matrix._requirements("2.10.0", matrix.LOCK_PINS) if r.startswith("opacus")] != [
        "opacus<1.5.4"
    ]  # 2.10 sorts after 2.4 (as numbers, not strings)


def test_a_failed_install_keeps_the_record_of_the_last_run(tmp_path, monkeypatch):
    """A version whose environment cannot be built (here: a full disk, as happened once) must not replace
    the results of an earlier run with an empty 'could not install' record; with no earlier record, the
    failure itself is recorded."""
    from tools import matrix

    monkeypatch.setattr(
        matrix, "build_env", lambda version, base, log: (None, "could not install: disk full")
    )
    kept = VerificationRecord(
        label="torch-2.0.1-cpu",
        torch="2.0.1",
        device="cpu",
        date="2026-11-30",
        notebooks={"01_tensors": {"source_hash": "x"}},
    )
    out = tmp_path / "records"
    path = kept.save(out)
    before = path.read_text(encoding="utf-8")
    assert matrix.run_version("2.0.1", tmp_path / "envs", 1, True, out) == 1
    assert path.read_text(encoding="utf-8") == before
    assert matrix.run_version("2.1.2", tmp_path / "envs", 1, True, out) == 1
    fresh = VerificationRecord.from_json((out / "torch-2.1.2-cpu.json").read_text(encoding="utf-8"))
    assert fresh.status == "could not install: disk full" and not fresh.notebooks
