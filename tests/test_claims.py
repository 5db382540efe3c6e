import numpy as np
import pytest
import torch

from helpers.claims import (
    REFERENCE_KINDS,
    ClaimError,
    LedgerEntry,
    claim,
    claim_close,
    claim_raises,
    parse_ledger,
    parse_skips,
    skip,
)

A = "manual: arithmetic by hand"
LINE_TAIL = " — against a manual computation: arithmetic by hand"


def test_claim_prints_ledger_line_with_its_reference(capsys):
    assert claim("C1", "one plus one is two", 1 + 1 == 2, against=A) is None
    assert capsys.readouterr().out == "✔ C1 one plus one is two" + LINE_TAIL + "\n"


@pytest.mark.parametrize("kind", sorted(REFERENCE_KINDS))
def test_every_reference_kind_round_trips(kind, capsys):
    claim("C7", "a statement", True, against=f"{kind}: something else")
    (entry,) = parse_ledger(capsys.readouterr().out)
    assert entry == LedgerEntry("C7", "a statement", kind, "something else")


def test_against_is_required_and_validated():
    with pytest.raises(TypeError):
        claim("C1", "no reference", True)  # type: ignore[call-arg]
    for bad in ["", "nothing", "magic: trust me", "api:", "api: two\nlines", None, "api: a — b"]:
        with pytest.raises(ValueError, match="against"):
            claim("C1", "statement", True, against=bad)
    with pytest.raises(ValueError, match="its own statement"):
        claim("C1", "x equals y", True, against="manual: x equals y")


def test_claim_failure_raises_with_id():
    with pytest.raises(ClaimError, match="C2 FAILED: false thing"):
        claim("C2", "false thing", False, against=A)


def test_claim_failure_is_an_assertion_error():
    assert issubclass(ClaimError, AssertionError)


def test_claim_accepts_single_bool_tensor(capsys):
    claim("C3", "tensor bool", torch.tensor(True), against=A)
    assert "✔ C3" in capsys.readouterr().out


def test_claim_accepts_numpy_bool(capsys):
    claim("C3", "numpy bool", np.float64(1.0) < 2.0, against=A)
    assert "✔ C3" in capsys.readouterr().out
    with pytest.raises(ClaimError):
        claim("C3", "numpy false", np.array([1.0]).max() > 2.0, against=A)


@pytest.mark.parametrize(
    "bad", [[True], torch.tensor([True, True]), torch.tensor(1.0), None, 1, "yes", np.array([True, False])]
)
def test_claim_rejects_truthy_non_bools(bad):
    with pytest.raises(TypeError, match="condition"):
        claim("C4", "no truthiness", bad, against=A)


@pytest.mark.parametrize("cid", ["c1", "C", "1", "C1a", "", None, "D3"])
def test_claim_rejects_bad_ids(cid):
    with pytest.raises(ValueError, match="claim id"):
        claim(cid, "statement", True, against=A)


@pytest.mark.parametrize("statement", ["", "   ", "two\nlines", None, "with — separator"])
def test_claim_rejects_bad_statements(statement):
    with pytest.raises(ValueError, match="statement"):
        claim("C1", statement, True, against=A)


def test_claim_close_pass_and_fail(capsys):
    claim_close("C5", "close", torch.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-7], against=A)
    assert capsys.readouterr().out.startswith("✔ C5 close — against")
    with pytest.raises(ClaimError, match="C6 FAILED"):
        claim_close("C6", "not close", torch.tensor([1.0]), torch.tensor([1.1]), against=A)


def test_claim_close_refuses_a_value_compared_with_itself():
    t = torch.randn(3)
    with pytest.raises(ValueError, match="same memory"):
        claim_close("C5", "self", t, t, against=A)
    with pytest.raises(ValueError, match="same memory"):
        claim_close("C5", "self view", t, t.view(3), against=A)
    claim_close("C5", "a copy is another tensor", t, t.clone(), against=A)


def test_claim_close_tolerances_must_come_together():
    with pytest.raises(ValueError, match="rtol and atol"):
        claim_close("C7", "x", 1.0, 1.0, rtol=1e-3, against=A)


def test_claim_raises(capsys):
    exc = claim_raises("C8", "div by zero", lambda: 1 / 0, ZeroDivisionError, "division", against=A)
    assert isinstance(exc, ZeroDivisionError)
    assert "✔ C8 div by zero — against" in capsys.readouterr().out


def test_claim_raises_with_a_fix_that_works_and_one_that_does_not(capsys):
    claim_raises("C8", "fixed", lambda: 1 / 0, ZeroDivisionError, against=A, fix=lambda: 1 / 1)
    assert "✔ C8 fixed" in capsys.readouterr().out
    with pytest.raises(ClaimError, match="the fix raised ZeroDivisionError"):
        claim_raises("C8", "not fixed", lambda: 1 / 0, ZeroDivisionError, against=A, fix=lambda: 2 / 0)
    assert capsys.readouterr().out == ""
    with pytest.raises(TypeError, match="fix must be callable"):
        claim_raises("C8", "x", lambda: 1 / 0, ZeroDivisionError, against=A, fix=3)


def test_claim_raises_failures():
    with pytest.raises(ClaimError, match="nothing was raised"):
        claim_raises("C9", "x", lambda: None, ValueError, against=A)
    with pytest.raises(ClaimError, match="raised ZeroDivisionError"):
        claim_raises("C9", "x", lambda: 1 / 0, ValueError, against=A)
    with pytest.raises(ClaimError, match="message lacks"):
        claim_raises("C9", "x", lambda: 1 / 0, ZeroDivisionError, "absent text", against=A)
    with pytest.raises(TypeError, match="callable"):
        claim_raises("C9", "x", 42, ValueError, against=A)


def test_skip_line_and_parse(capsys):
    skip("C10", "needs a GPU", "needs CUDA", against="api: the CPU result")
    out = capsys.readouterr().out
    assert out == "⊘ C10 needs a GPU — against another API: the CPU result — skipped: needs CUDA\n"
    assert parse_skips(out) == [LedgerEntry("C10", "needs a GPU", "api", "the CPU result")]
    assert parse_ledger(out) == []
    with pytest.raises(ValueError, match="reason"):
        skip("C10", "x", "", against=A)


def test_parse_ledger_ignores_lines_without_a_reference():
    text = (
        "noise\n✔ C1 first" + LINE_TAIL + "\n✔ C12 second claim" + LINE_TAIL + " \n"
        "✔ C2 old line without a reference\n✔ X1 not a claim" + LINE_TAIL + "\n"
    )
    assert [(e.cid, e.statement) for e in parse_ledger(text)] == [("C1", "first"), ("C12", "second claim")]
