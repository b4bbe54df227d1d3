#!/usr/bin/env bash
# Issue 50's GPU measurements in one device call: the ONE command line to give the device tool
# (/work/.library/device/README.md). It runs benchmarks/cuda_check.py and benchmarks/gpu_batch.py
# (whose text says what each part measures) and leaves their files under $OUT/gpu-<kind>/.
#
# 1. HERE, first (needs ../shared/data; about a minute): what the GPU machine lacks, into the
#    git-ignored build/gpu-carry/ (about 2.3 MiB: the gothic-pg workload, the Gothic `authors`
#    comparison's lost text and nine lists, the pure-Python ipapy the engine imports, the commit):
#        .venv/bin/python -m benchmarks.gpu_batch prepare
#    Everything else that machine has (torch, numba, numpy, tqdm: KINDS.md); nothing is installed there.
#
# 2. The device call (about 6.5 minutes of the machine, at most 8.2, plus its start; an estimate from the
#    H100 rows of docs/benchmarks.md, not yet a reading):
#        run(command="bash benchmarks/gpu_session.sh", carry=["build/gpu-carry"], timeout_s=540)
#    single run, 64 runs batched, `decipher run --seeds 0 1 2 3 4` against one seed, and the authors
#    comparison at 100 steps a run (its wall time only). The comparison at the record's 3,000 steps
#    does not fit beside them: it is a call of its own, in a later session (at most 9.6 minutes; a
#    comparison not done in 520 s is a timed_out row with the runs it finished and a projection):
#        run(command="bash benchmarks/gpu_session.sh closeness", carry=["build/gpu-carry"], timeout_s=600)
#
# 3. BACK HERE, with the reply's files_at folder as F and the kind the script printed (gpu-h200 on an
#    H200, gpu-h100 on an H100) as K:
#        mkdir -p benchmarks/results/K && cat F/K/batch.jsonl >> benchmarks/results/K/batch.jsonl
#        cp F/K/cuda-check-*.json F/K/machine-*.txt F/K/session-*.log benchmarks/results/K/
#        .venv/bin/python -m benchmarks.provenance      # the copied files' rows (their own commit and command)
#
# A dry run here, on the CPU at the dry run's sizes (OUT any empty folder):
#     OUT=/tmp/gpu-out DEVICE=cpu PYTHON=.venv/bin/python bash benchmarks/gpu_session.sh
set -u -o pipefail

mode=${1:-all}
case "$mode" in
  all|closeness) ;;
  *) echo "error: $0: unknown mode '$mode' (all, or closeness)" >&2; exit 2 ;;
esac
if [ -z "${OUT:-}" ]; then
  echo "error: OUT is not set (the device tool sets it; a dry run here: OUT=/tmp/gpu-out DEVICE=cpu ...)" >&2
  exit 2
fi
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
CARRY=build/gpu-carry
if [ ! -f "$CARRY/MANIFEST.txt" ]; then
  echo "error: $CARRY/MANIFEST.txt: no such file; run '.venv/bin/python -m benchmarks.gpu_batch prepare' here and name $CARRY in the call's carry" >&2
  exit 2
fi
export PYTHONPATH="$PWD:$PWD/$CARRY/site${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export DECIPHER_COMMIT=${DECIPHER_COMMIT:-$(cat "$CARRY/COMMIT")}
# the device tool brings back only names of letters, digits, '.', '_' and '-'
tag=$(printf '%s' "$DECIPHER_COMMIT" | tr -c 'A-Za-z0-9._-' '-')
t0=$(date +%s)

kind=$($PY -m benchmarks.gpu_batch kind --device "$DEVICE") || exit 2
dir="$OUT/$kind"
mkdir -p "$dir"
log="$dir/session-$tag-$mode.log"
echo "gpu_session.sh $mode: commit $DECIPHER_COMMIT, device $DEVICE, rows in $dir" | tee -a "$log"

sizes=(--closeness-steps 3000)                 # closeness mode: the record's steps
[ "$DEVICE" = cpu ] && sizes=(--quick --workload sample)    # the dry run's sizes

if [ "$mode" = all ]; then
  {
    date -u +%Y-%m-%dT%H:%M:%SZ
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || echo "no nvidia-smi"
    echo "cpus $(nproc)"
    $PY -c "import sys, torch, numba, numpy; print(sys.version.split()[0], torch.__version__, numba.__version__, numpy.__version__)"
  } > "$dir/machine-$tag.txt" 2>&1
  dry=()
  [ "$DEVICE" = cpu ] && dry=(--cpu-dry-run)
  timeout 60 $PY -m benchmarks.cuda_check "${dry[@]}" > "$dir/cuda-check-$tag.json" 2>> "$log"
  echo "cuda_check: exit $? ($(( $(date +%s) - t0 )) s)" | tee -a "$log"
  [ "$DEVICE" = cpu ] || sizes=()
  timeout 420 $PY -m benchmarks.gpu_batch measure --device "$DEVICE" --budget-s 360 --results "$OUT" "${sizes[@]}" 2>&1 | tee -a "$log"
  status=$?
else
  # the authors comparison as the record ran it: 9 candidates x 3 seeds x (1 + 3 nulls), 3,000 steps
  timeout 575 $PY -m benchmarks.gpu_batch measure --device "$DEVICE" --part closeness --budget-s 520 \
    --results "$OUT" "${sizes[@]}" 2>&1 | tee -a "$log"
  status=$?
fi
echo "gpu_session.sh $mode: gpu_batch exit $status, $(( $(date +%s) - t0 )) s in all; files:" | tee -a "$log"
ls -l "$dir" | tee -a "$log"
exit "$status"
