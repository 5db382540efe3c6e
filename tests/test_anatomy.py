"""tools/anatomy.py (the mechanical layout) and tools.notebooks.layout_problems (the rules it serves)."""

from __future__ import annotations

import nbformat
import pytest

from tools.anatomy import fit_source, fold_claim_list, split_string
from tools.notebooks import fold_cell, is_check_cell, layout_problems, setup_cell_source


@pytest.mark.parametrize(
    "token",
    [
        '"abc def ghi jkl mno pqr stu vwx yz abc def ghi"',
        'f"value {x:.3f} and {y} more words here {{literal}} to the end"',
        "rb'a b c d e f g h i j k l m n o p q r s t u v w x y z'",
        '"escaped \\\\ backslash and \\"quotes\\" in a long string of words"',
    ],
)
def test_split_string_is_the_same_string(token):
    pieces = split_string(token, 24)
    assert pieces and len(pieces) > 1 and all(len(p) <= 26 for p in pieces[1:])
    scope = {"x": 1.5, "y": 2}
    assert eval(" ".join(pieces), scope) == eval(token, scope)  # implicit concatenation
    assert not any(p.startswith("f") and "{" not in p for p in pieces)  # no placeholder-less f-string


def test_split_string_refuses_what_it_cannot_split():
    assert split_string('"nospaceshere' + "x" * 60 + '"', 30) is None
    assert split_string('"""triple quoted text with spaces in it"""', 20) is None
    with pytest.raises(ValueError, match="at least 20"):
        split_string('"a b"', 5)


def test_fit_source_fits_and_keeps_meaning():
    source = (
        "total = compute(1, 2)  # " + "a long comment that explains the value " * 2 + "\n"
        'print("' + "many words in a message " * 5 + '", end="")\n'
    )
    fitted = fit_source(source, width=60)
    assert all(len(line) <= 60 for line in fitted.splitlines()), fitted
    assert fitted.splitlines()[0].startswith("# a long comment")
    compile(fitted, "<cell>", "exec")
    assert fit_source("%%writefile x.py\nprint(1)\n") == "%%writefile x.py\nprint(1)\n"  # magics left


def test_fold_claim_list_folds_once():
    intro = "# 05 · Topic\n\nWhy.\n\n**Claims** (each is asserted):\n\n- **C1** one\n- **C2** two\n"
    folded = fold_claim_list(intro)
    assert "<summary>All 2 claims this page proves</summary>" in folded
    assert folded.index("<details>") < folded.index("**Claims**") < folded.index("</details>")
    assert fold_claim_list(folded) == folded
    # a claim added to a folded list is counted again, nothing else changes
    added = folded.replace("- **C2** two\n", "- **C2** two\n- **C3** three\n")
    assert fold_claim_list(added) == added.replace("All 2 claims", "All 3 claims")


def _nb(*cells: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def test_layout_problems_name_each_rule():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    setup = code(setup_cell_source())
    check = code('claim("C1", "x holds", True, against="formula: y")')
    good = _nb(
        md("# 05 · T\n\n**What you will learn**\n\n<details>\n\n**Claims**\n\n- **C1** x\n\n</details>"),
        setup,
        md("## 1 First things\n\n### 1.1 A part"),
        check,
        md("## Takeaways\n\n## References"),
    )
    assert is_check_cell(check) and not is_check_cell(setup)
    bad = layout_problems(good)
    assert any("not folded" in p for p in bad) and any("setup cell" in p for p in bad)
    fold_cell(check)
    setup.metadata["tags"] = ["remove-cell"]
    setup.metadata["jupyter"] = {"source_hidden": True}
    assert layout_problems(good) == []
    good.cells[2].source = "## 1 First things\n\n### C1 · A part\n\n### 1.3 Skipped"
    good.cells.append(code("x = 1  # " + "y" * 90))
    wide = code("print(s)")  # a visible cell that printed a line a phone cannot show whole
    wide.outputs = [nbformat.v4.new_output("stream", name="stdout", text="z" * 89 + "\n")]
    good.cells.append(wide)
    found = " | ".join(layout_problems(good))
    for words in ("names claim ids", "expected '### 1.1 Title'", "> 88 characters", "prints a line of 89"):
        assert words in found, found
    wide.outputs[0]["text"] = "z" * 88 + "\n"
    assert "prints a line" not in " | ".join(layout_problems(good))
    # an uncaught error stays verbatim (the site's error index reads its exact message)
    wide.outputs = [nbformat.v4.new_output("error", ename="ValueError", evalue="v" * 80, traceback=[])]
    assert "prints a line" not in " | ".join(layout_problems(good))
