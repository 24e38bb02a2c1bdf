#!/bin/sh
# Runs the tensor-parallel MLP sample (README.md) as RANKS processes on DEVICE
# and checks every rank's result against the unsplit block's:
#
#   run_tp_mlp.sh BIN_DIR DEVICE RANKS WORK_DIR [PYTHON]
#
# DEVICE is cpu or cuda (each rank takes the GPU of its rank). Exits 77 (a
# skipped test) when DEVICE has fewer devices than RANKS needs.
set -eu
bin="$1"
device="$2"
ranks="$3"
work="$4"
python="${5:-python3}"
here="$(cd "$(dirname "$0")" && pwd)"
# The Python the build found may lack numpy where the test runs (a GPU
# machine with its own Python): take the first one that has it.
for candidate in "${python}" python3 /usr/bin/python3; do
  if "${candidate}" -c "import numpy" 2>/dev/null; then
    python="${candidate}"
    break
  fi
done

case "${device}" in
  cpu) backend=llvm-cpu ;;
  cuda)
    backend=cuda
    count=$("${bin}/kiln-run-module" --list_devices | grep -c '^cuda://' || true)
    if [ "${count}" -lt "${ranks}" ]; then
      echo "SKIPPED: ${ranks} ranks need ${ranks} CUDA devices; this machine has ${count}"
      exit 77
    fi
    ;;
  *) echo "run_tp_mlp.sh: unknown device '${device}' (cpu or cuda)" >&2; exit 2 ;;
esac

mkdir -p "${work}"
"${python}" "${here}/make_tp_mlp.py" --ranks "${ranks}" --out "${work}"
"${bin}/kiln-compile" "${work}/tp_mlp_n${ranks}.mlir" --iree-hal-target-backends=${backend} \
  -o "${work}/tp_mlp_n${ranks}.kmod"
# NVLink multicast stays off on shared machines.
NCCL_NVLS_ENABLE=0 "${python}" "${here}/run_ranks.py" -n "${ranks}" -- \
  "${bin}/kiln-run-module" --module="${work}/tp_mlp_n${ranks}.kmod" --device="${device}" \
  --function=mlp --parameters="model=${work}/weights_n${ranks}_rank{rank}.safetensors" \
  --input="@${work}/input.npy" --expected_output="@${work}/expected.npy" \
  --expected_f32_threshold=1e-4 --output_max_element_count=4
