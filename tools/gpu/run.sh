#!/usr/bin/env bash
# The GPU half in one command. Run from the repository root on a lent GPU machine, with the kit carried:
#
#     make gpu-kit                         # here, once: the wheels the machine lacks, into .whl/
#     run(command="bash tools/gpu/run.sh", carry=[".whl"], timeout_s=600)      # the device tool
#
# Installs the kit, writes the GPU verification record (tools/matrix.py --here: every notebook executed on
# CUDA, the same schema as the version matrix), then runs the whole notebook suite under pytest --nbval,
# and leaves in $OUT: the log (written as it goes, so a killed run still leaves it), the record, the
# device's package list, nbval's JUnit report, and a tarball of the executed notebooks and figures.
# Elsewhere (a rehearsal: FIELDNOTES_PYTHON names the interpreter) it runs the same steps; CUDA cells skip.
# Environment: ONLY (notebook prefixes, a rerun), JOBS (default: every core), RECORD_TIMEOUT / NBVAL_TIMEOUT
# (seconds, default 300 each: with the kit's 15 s the whole run stays inside one 10-minute device call).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/_build/gpu-run}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu-run.log") 2>&1
PY=${FIELDNOTES_PYTHON:-python3}
JOBS=${JOBS:-$(nproc)}
KIT=${FIELDNOTES_KIT_DIR:-/tmp/fieldnotes-kit}
t0=$(date +%s)
step() { echo "== [$(($(date +%s) - t0)) s] $*"; }
status=0

step "device (its own packages listed before the kit is installed: tools/gpu/device-packages.txt)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
"$PY" -c "import torch; print('torch', torch.__version__, 'CUDA', torch.version.cuda, 'available', \
torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
"$PY" -m pip list --format=freeze 2>/dev/null > "$OUT/device-packages.txt"

step "kit: $(ls "${KIT_WHEELS:-.whl}"/*.whl 2>/dev/null | wc -l) wheels into $KIT"
rm -rf "$KIT"
"$PY" -m pip install -q --disable-pip-version-check --no-index --no-deps --no-compile --no-cache-dir \
  --target "$KIT" "${KIT_WHEELS:-.whl}"/*.whl || { echo "kit: install failed"; exit 2; }
# Kernels started by nbval and by the executor inherit these: the kit, `import helpers`, torchviz's `dot`.
export PYTHONPATH="$KIT:$PWD${PYTHONPATH:+:$PYTHONPATH}" PATH="$KIT/bin:$PATH" PYTHONUNBUFFERED=1
# a kernel that dies at start-up (16 starting at once) is started again; each such retry is logged here
export FIELDNOTES_KERNEL_LOG="$OUT/kernel-starts.log"
: > "$FIELDNOTES_KERNEL_LOG"
ln -sf graphviz-pure "$KIT/bin/dot"
"$PY" -c "import nbval, nbclient, ipykernel, torchinfo, torchviz, opacus, helpers; print('kit: imports ok')" \
  || { echo "kit: an import failed"; exit 2; }

# ONLY="00 13" (a rerun) re-executes just those notebooks and updates the committed record of this device.
ONLY=${ONLY:-}
rm -rf _build/gpu-executed
NOTEBOOKS=notebooks
if [ -n "$ONLY" ]; then
  NOTEBOOKS=$(for o in $ONLY; do ls notebooks/"$o"_*.ipynb; done)
  step "record: notebooks $ONLY re-executed on this device, the committed record updated"
  timeout "${RECORD_TIMEOUT:-300}" "$PY" tools/matrix.py --here --jobs "$JOBS" --only $ONLY \
    --out site/verification --save-executed _build/gpu-executed || status=1
  cp site/verification/torch-*-cuda-*.json "$OUT"/ 2>/dev/null
else
  step "record: every notebook executed on this device ($JOBS at a time)"
  timeout "${RECORD_TIMEOUT:-300}" "$PY" tools/matrix.py --here --jobs "$JOBS" --out "$OUT" \
    --save-executed _build/gpu-executed || status=1
fi

step "nbval: the stored outputs compared on this device ($JOBS workers)"
# shellcheck disable=SC2086 # one path per notebook
OMP_NUM_THREADS=1 timeout "${NBVAL_TIMEOUT:-300}" "$PY" -m pytest -q -n "$JOBS" --dist loadfile --no-loadscope-reorder --nbval \
  $NOTEBOOKS -rfE -p no:benchmark --junitxml="$OUT/nbval.xml" -o junit_logging=no || status=1

step "bring back ($(cat "$FIELDNOTES_KERNEL_LOG" 2>/dev/null | grep -c 'died at start-up') kernel start-ups failed; each kernel gets 3 tries)"
tar czf "$OUT/executed.tar.gz" _build/gpu-executed figures \
  2>/dev/null || true
ls -la "$OUT"
step "done (exit $status)"
exit $status
