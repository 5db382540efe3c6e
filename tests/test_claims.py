import pytest
import torch

from helpers.claims import ClaimError, claim, claim_close, claim_raises, parse_ledger, skip


def test_claim_prints_ledger_line(capsys):
    assert claim("C1", "one plus one is two", 1 + 1 == 2) is None
    assert capsys.readouterr().out == "✔ C1 one plus one is two\n"


def test_claim_failure_raises_with_id():
    with pytest.raises(ClaimError, match="C2 FAILED: false thing"):
        claim("C2", "false thing", False)


def test_claim_failure_is_an_assertion_error():
    assert issubclass(ClaimError, AssertionError)


def test_claim_accepts_single_bool_tensor(capsys):
    claim("C3", "tensor bool", torch.tensor(True))
    assert "✔ C3" in capsys.readouterr().out


def test_claim_accepts_numpy_bool(capsys):
    import numpy as np

    claim("C3", "numpy bool", np.float64(1.0) < 2.0)
    assert "✔ C3" in capsys.readouterr().out
    with pytest.raises(ClaimError):
        claim("C3", "numpy false", np.array([1.0]).max() > 2.0)


@pytest.mark.parametrize("bad", [[True], torch.tensor([True, True]), torch.tensor(1.0), None, 1, "yes",
                                 __import__("numpy").array([True, False])])
def test_claim_rejects_truthy_non_bools(bad):
    with pytest.raises(TypeError, match="condition"):
        claim("C4", "no truthiness", bad)


@pytest.mark.parametrize("cid", ["c1", "C", "1", "C1a", "", None, "D3"])
def test_claim_rejects_bad_ids(cid):
    with pytest.raises(ValueError, match="claim id"):
        claim(cid, "statement", True)


@pytest.mark.parametrize("statement", ["", "   ", "two\nlines", None])
def test_claim_rejects_bad_statements(statement):
    with pytest.raises(ValueError, match="statement"):
        claim("C1", statement, True)


def test_claim_close_pass_and_fail(capsys):
    claim_close("C5", "close", torch.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-7])
    assert capsys.readouterr().out.startswith("✔ C5 close")
    with pytest.raises(ClaimError, match="C6 FAILED"):
        claim_close("C6", "not close", torch.tensor([1.0]), torch.tensor([1.1]))


def test_claim_close_tolerances_must_come_together():
    with pytest.raises(ValueError, match="rtol and atol"):
        claim_close("C7", "x", 1.0, 1.0, rtol=1e-3)


def test_claim_raises(capsys):
    exc = claim_raises("C8", "div by zero", lambda: 1 / 0, ZeroDivisionError, "division")
    assert isinstance(exc, ZeroDivisionError)
    assert "✔ C8 div by zero" in capsys.readouterr().out


def test_claim_raises_failures():
    with pytest.raises(ClaimError, match="nothing was raised"):
        claim_raises("C9", "x", lambda: None, ValueError)
    with pytest.raises(ClaimError, match="raised ZeroDivisionError"):
        claim_raises("C9", "x", lambda: 1 / 0, ValueError)
    with pytest.raises(ClaimError, match="message lacks"):
        claim_raises("C9", "x", lambda: 1 / 0, ZeroDivisionError, "absent text")
    with pytest.raises(TypeError, match="callable"):
        claim_raises("C9", "x", 42, ValueError)


def test_skip_line_and_parse(capsys):
    skip("C10", "needs a GPU", "needs CUDA")
    out = capsys.readouterr().out
    assert out == "⊘ C10 needs a GPU — skipped: needs CUDA\n"
    with pytest.raises(ValueError, match="reason"):
        skip("C10", "x", "")


def test_parse_ledger_roundtrip():
    text = "noise\n✔ C1 first\n✔ C12 second claim \n✔ X1 not a claim\n⊘ C3 skipped — skipped: cpu\n"
    assert parse_ledger(text) == [("C1", "first"), ("C12", "second claim")]
