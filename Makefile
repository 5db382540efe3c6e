# PyTorch Field Notes — the verbs. Every target creates/updates .venv from the lock itself.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cksum < requirements.txt | cut -d' ' -f1)
# Kernels started by make targets find the venv's tools (e.g. `dot`, linked to graphviz-pure).
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
# Parallel pytest workers (nbval needs --dist loadfile: one notebook per worker): one more than the
# cores, because a worker often waits (a DDP timeout, a child Python starting, the browser) and a core
# then idles. On 2 cores, paired runs of `make test` with a fresh site build: 3 workers 174 s median,
# 2 workers 185 s (each pair faster, ratio 0.85-0.99); idle core-seconds 40 -> 10.
JOBS   ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
NB     ?=

.PHONY: help setup test site serve lab execute lock stress loadtest matrix screenshots clean gpu-kit gpu-rehearsal
help:
	@echo "make site     build the static site from the stored outputs into _build/html"
	@echo "make test     helper + hygiene + site tests, then every notebook under nbval"
	@echo "make lab      JupyterLab on notebooks/"
	@echo "make execute  re-execute changed notebooks (ALL=1 for all, NB=notebooks/00_x.ipynb for one)"
	@echo "make serve    serve _build/html on http://127.0.0.1:8000"
	@echo "make lock     regenerate requirements.txt from requirements.in"
	@echo "make stress   50 consecutive DDP runs in one kernel (reliability of notebook 13)"
	@echo "make loadtest 10 runs of each timing notebook while 2 CPU-bound processes compete"
	@echo "make screenshots  rebuild the README's pictures of the site (figures/site_*.png)"
	@echo "make matrix   run every notebook under other torch versions (TORCH=\"2.11.0 2.15.0\"), write records"
	@echo "make gpu-kit  the wheels a lent GPU machine lacks, into .whl/ (tools/gpu/run.sh runs there)"
	@echo "make gpu-rehearsal  tools/gpu/run.sh here, with the GPU machine's torch and package versions"
	@echo "make clean    remove _build (keeps .venv)"

# pyproject.toml too: the project itself is installed (its console script and flake8 plugin).
$(STAMP): requirements.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "== installing pinned dependencies into $(VENV) (first time: a few minutes)"
	@# (the grep drops one machine-specific pip-config warning per package; pipefail keeps pip's exit status)
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements.txt 2>&1 \
	  | { grep -v "^WARNING: Location 'file:" || true; }
	@# The project itself, editable: the `fieldnotes` console script and its flake8 plugin (--no-deps: the
	@# lock above installed them; --no-build-isolation: the locked setuptools builds it, offline too).
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps --no-build-isolation -e . 2>&1 \
	  | { grep -v "^WARNING: Location 'file:" || true; }
	@# Make `import helpers` (and the site's package, fieldnotes_site) work in every kernel of this venv.
	@printf '%s\n' "$(CURDIR)" "$(CURDIR)/site" > "$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/fieldnotes.pth"
	@# torchviz needs Graphviz's `dot`; graphviz-pure ships one as a static binary.
	@ln -sf graphviz-pure $(BIN)/dot
	@rm -f $(VENV)/.installed-*
	@touch $@

setup: $(STAMP)

# One torch thread per worker: JOBS workers x N threads on a 2-core machine oversubscribe the cores
# (notebook 00, C19) — measured here (2 workers): 155 s with the default 2 threads each, 95 s with 1.
test: $(STAMP)
	$(BIN)/ruff check --quiet . && $(BIN)/ruff format --check --quiet .
	OMP_NUM_THREADS=$${OMP_NUM_THREADS:-1} $(BIN)/python -m pytest -n $(JOBS) --dist loadfile --no-loadscope-reorder --nbval tests notebooks

site: $(STAMP)
	$(BIN)/python -m fieldnotes_site.build --strict

# The README's pictures of the site, from the current build.
screenshots: site
	$(BIN)/python -m fieldnotes_site.screenshots

serve: site
	$(BIN)/python -m http.server 8000 --bind 127.0.0.1 --directory _build/html

lab: $(STAMP)
	@# Containers run as root, and JupyterLab refuses root without --allow-root.
	$(BIN)/jupyter lab $$( [ "$$(id -u)" = 0 ] && echo --allow-root ) notebooks

execute: $(STAMP)
	$(BIN)/python tools/execute.py $(if $(ALL),--all) $(NB)

stress: $(STAMP)
	$(BIN)/python tools/ddp_stress.py --runs 50

loadtest: $(STAMP)
	$(BIN)/python tools/load_test.py --runs $${RUNS:-10} $(NB)

# The newest patch of every minor release from 2.0 (2.13.0 is the pin: it runs in .venv itself).
TORCH ?= 2.0.1 2.1.2 2.2.2 2.3.1 2.4.1 2.5.1 2.6.0 2.7.1 2.8.0 2.9.1 2.10.0 2.11.0 2.12.1 2.13.0 2.14.1 2.15.0
# Environments live outside the repo (FIELDNOTES_MATRIX_DIR, default ~/.cache/fieldnotes-matrix); DROP=1 deletes
# each once its record is written; ONLY="02 16" re-runs those notebooks and updates the existing records;
# STALE=1 re-runs just the notebooks whose sources changed since each version's record.
matrix: $(STAMP)
	$(BIN)/python tools/matrix.py $(TORCH) $(if $(DROP),--drop) $(if $(STALE),--stale) $(if $(ONLY),--only $(ONLY))

# The GPU half in one device call (README, "Running on a GPU runner"): the kit travels as .whl/.
gpu-kit: $(STAMP)
	$(BIN)/python tools/gpu_kit.py download

gpu-rehearsal: $(STAMP)
	$(BIN)/python tools/gpu_kit.py rehearse

lock: $(STAMP)
	$(BIN)/python tools/lock.py

clean:
	rm -rf _build
