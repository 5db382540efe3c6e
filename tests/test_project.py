"""The project's own promises: exact pins, conda file reading the same pins, CI calling the README."""

from __future__ import annotations

import re
import subprocess

from tools.notebooks import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_lock_is_exact():
    lines = [
        ln for ln in (ROOT / "requirements.txt").read_text().splitlines() if ln and not ln.startswith("#")
    ]
    assert lines, "requirements.txt is empty"
    for ln in lines:
        assert re.match(r"^[A-Za-z0-9_.\-\[\]]+==[^=\s]+$", ln), f"not an exact pin: {ln!r}"
    names = [ln.split("==")[0].lower() for ln in lines]
    assert len(names) == len(set(names)), "a package is pinned twice"
    assert "torch==2.13.0" in lines, "torch must be pinned to 2.13.0 without a local (+cpu) tag"


def test_lock_covers_requirements_in():
    pinned = {
        ln.split("==")[0].lower().replace("_", "-")
        for ln in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in ln
    }
    for ln in (ROOT / "requirements.in").read_text().splitlines():
        name = re.split(r"[=<>!~ ]", ln.strip(), maxsplit=1)[0].lower().replace("_", "-")
        if name and not name.startswith("#"):
            assert name in pinned, f"{name} is in requirements.in but not locked in requirements.txt"


def test_environment_yml_reads_the_same_pins():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^\s*- python=3\.11\s*$", text, re.M), "environment.yml must use Python 3.11"
    pip_lines = re.findall(r"^\s*- (-[re] .+)$", text, re.M)
    assert pip_lines == ["-r requirements.txt", "-e ."], (
        "environment.yml's pip section must read requirements.txt and install the project (so kernels can "
        "`import helpers` without the Makefile's path file)"
    )


def test_readme_commands_exist_and_ci_calls_the_test_command():
    commands = re.findall(r"^\s*(make [a-z-]+)\s*(?:#.*)?$", README, re.M)
    assert "make site" in commands and "make test" in commands, "README must show `make site` and `make test`"
    targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), re.M))
    for cmd in commands:
        assert cmd.split()[1] in targets, f"README mentions `{cmd}` but the Makefile has no such target"
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^\s*make test\b", ci, re.M), ".ci/run must call the README's test command"


def test_gitignore_covers_generated_files():
    ignored = subprocess.run(
        [
            "git",
            "check-ignore",
            ".venv/x",
            "_build/x",
            "notebooks/__pycache__/x",
            ".pytest_cache/x",
            "notebooks/.ipynb_checkpoints/x",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert len(ignored) == 5, f"not ignored: {ignored}"


def test_readme_lists_every_notebook():
    from tools.notebooks import notebook_paths

    missing = [p.stem for p in notebook_paths() if f"`{p.stem}`" not in README]
    assert not missing, f"README's notebook table lacks {missing}"
