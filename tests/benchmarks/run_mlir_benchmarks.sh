#!/usr/bin/env bash
# Times bytecode that kiln-compile generated from MLIR (fib.mlir, loop.mlir)
# against the same algorithms as hand-built bytecode (kiln_vm_benchmark's
# BM_Fib32 / BM_Loop1e8), lua5.4 and luajit -joff: fib(32) and a 10^8-iteration
# integer loop. The requirement is compiled code within 10% of the hand-built
# bytecode.
#
# Usage: tests/benchmarks/run_mlir_benchmarks.sh [BUILD_DIR]   (default: build-release)
#
# Compiles both programs with BUILD_DIR/bin/kiln-compile, then runs 5
# repetitions of 8 configurations (kiln-mlir, kiln-builder, lua5.4,
# luajit -joff) x (fib, loop), round-robin: each repetition runs every
# configuration once, so machine noise hits all of them evenly. Every run is
# its own process.
#
# What is timed:
#   kiln-mlir     the CPU time (user + sys) of the whole `kiln-run-module
#                 --function=fib --input=32` process, measured with
#                 getrusage: kiln-run-module has no timing flag, so process
#                 startup, loading and verifying the module are included
#                 (about a millisecond, under 1% of these runs);
#   kiln-builder  Google Benchmark's cpu_time of one invocation;
#   Lua           os.clock() around the call, inside the script.
# Prints the median/min/max of each configuration and the ratios
# kiln-mlir / luajit -joff, kiln-mlir / lua5.4 and kiln-mlir / kiln-builder.
# Exits non-zero if any run fails or computes a wrong result (kiln-run-module's
# `result[0]: ...` line is checked against the expected value).
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${1:-build-release}"
for binary in kiln-compile kiln-run-module kiln_vm_benchmark; do
  if [[ ! -x "${build_dir}/bin/${binary}" ]]; then
    echo "error: ${build_dir}/bin/${binary} not found; build it first:" >&2
    echo "  cmake --preset release && cmake --build ${build_dir} --target kiln-compile" \
         "kiln-run-module kiln_vm_benchmark" >&2
    exit 1
  fi
done
for tool in lua5.4 luajit python3; do
  if ! command -v "${tool}" > /dev/null; then
    echo "error: ${tool} not found (Debian packages: lua5.4, luajit, python3)" >&2
    exit 1
  fi
done

work_dir="$(mktemp -d)"
trap 'rm -rf "${work_dir}"' EXIT
for program in fib loop; do
  "${build_dir}/bin/kiln-compile" "${script_dir}/${program}.mlir" -o "${work_dir}/${program}.kmod"
done

exec python3 - "${build_dir}/bin" "${script_dir}" "${work_dir}" << 'PYTHON'
import json
import os
import re
import statistics
import subprocess
import sys

bin_dir, script_dir, work_dir = sys.argv[1], sys.argv[2], sys.argv[3]
REPETITIONS = 5
FIB_N, LOOP_N = 32, 100_000_000


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def loop_sum(n):
    # i * 3 % 7 has period 7 and each period sums to 21.
    q, r = divmod(n, 7)
    return 21 * q + sum(i * 3 % 7 for i in range(r))


EXPECTED = {"fib": fib(FIB_N), "loop": loop_sum(LOOP_N)}
RESULT_TYPE = {"fib": "i32", "loop": "i64"}
INPUT = {"fib": FIB_N, "loop": LOOP_N}
errors = []


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {proc.returncode}:\n"
                           f"{proc.stdout}{proc.stderr}")
    return proc.stdout


def run_kiln_mlir(name):
    """CPU seconds (user + sys) of one kiln-run-module process."""
    command = [f"{bin_dir}/kiln-run-module", f"--module={work_dir}/{name}.kmod",
               f"--function={name}", f"--input={INPUT[name]}"]
    pid = os.posix_spawn(command[0], command, os.environ,
                         file_actions=[(os.POSIX_SPAWN_OPEN, 1, f"{work_dir}/out.txt",
                                        os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)])
    _, status, usage = os.wait4(pid, 0)
    with open(f"{work_dir}/out.txt") as f:
        out = f.read()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({status}):\n{out}")
    m = re.fullmatch(rf"EXEC @{name}\nresult\[0\]: {RESULT_TYPE[name]}=(-?\d+)\n", out)
    if not m:
        raise RuntimeError(f"unexpected output from {' '.join(command)}: {out!r}")
    if int(m.group(1)) != EXPECTED[name]:
        errors.append(f"kiln-run-module {name}.kmod returned {m.group(1)}, "
                      f"expected {EXPECTED[name]}")
    return usage.ru_utime + usage.ru_stime


def run_kiln_builder(name):
    filter_name = {"fib": "BM_Fib32", "loop": "BM_Loop1e8"}[name]
    out = run([f"{bin_dir}/kiln_vm_benchmark", f"--benchmark_filter=^{filter_name}/",
               "--repetitions=1", "--benchmark_format=json"])
    runs = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]
    if len(runs) != 1 or runs[0].get("error_occurred"):
        raise RuntimeError(f"kiln_vm_benchmark {name}: {runs}")
    r = runs[0]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[r["time_unit"]]
    # The benchmark checks its result itself and exits non-zero if it is wrong.
    return r["cpu_time"] * scale


def run_lua(interpreter, name):
    out = run(interpreter + [f"{script_dir}/{name}.lua"])
    m = re.fullmatch(r"result=(-?\d+) seconds=([0-9.]+)\s*", out)
    if not m:
        raise RuntimeError(f"unexpected output from {' '.join(interpreter)} {name}.lua: {out!r}")
    if int(m.group(1)) != EXPECTED[name]:
        errors.append(f"{' '.join(interpreter)} {name}.lua returned {m.group(1)}, "
                      f"expected {EXPECTED[name]}")
    return float(m.group(2))


RUNTIMES = ["kiln-mlir", "kiln-builder", "lua5.4", "luajit -joff"]
CONFIGS = [(runtime, name) for runtime in RUNTIMES for name in ("fib", "loop")]
seconds = {c: [] for c in CONFIGS}

try:
    for rep in range(REPETITIONS):
        for config in CONFIGS:
            runtime, name = config
            if runtime == "kiln-mlir":
                s = run_kiln_mlir(name)
            elif runtime == "kiln-builder":
                s = run_kiln_builder(name)
            else:
                s = run_lua(runtime.split(), name)
            seconds[config].append(s)
        print(f"repetition {rep + 1}/{REPETITIONS}: " +
              "  ".join(f"{r} {n} {seconds[(r, n)][-1]:.3f}s" for r, n in CONFIGS),
              flush=True)
except RuntimeError as e:
    print(f"error: {e}", file=sys.stderr)
    sys.exit(1)

label = {"fib": f"fib({FIB_N})", "loop": "loop 1e8"}
print()
print(f"{'configuration':<26} {'median s':>9} {'min s':>9} {'max s':>9}   (CPU seconds, "
      f"{REPETITIONS} runs each)")
for runtime, name in CONFIGS:
    v = seconds[(runtime, name)]
    print(f"{runtime + ' ' + label[name]:<26} {statistics.median(v):>9.3f} "
          f"{min(v):>9.3f} {max(v):>9.3f}")
print()
too_slow = []
for name in ("fib", "loop"):
    median = {r: statistics.median(seconds[(r, name)]) for r in RUNTIMES}
    mlir = median["kiln-mlir"]
    to_builder = mlir / median["kiln-builder"]
    print(f"{label[name]:<9} kiln-mlir/luajit -joff = {mlir / median['luajit -joff']:.2f}   "
          f"kiln-mlir/lua5.4 = {mlir / median['lua5.4']:.2f}   "
          f"kiln-mlir/kiln-builder = {to_builder:.2f} "
          f"({'within 10%' if to_builder <= 1.10 else 'MORE THAN 10% SLOWER'})")
    if to_builder > 1.10:
        too_slow.append(label[name])

if errors:
    print("\nWRONG RESULTS:", *errors, sep="\n  ", file=sys.stderr)
    sys.exit(1)
if too_slow:
    print(f"\nnote: compiled code more than 10% slower than the builder-made bytecode on "
          f"{', '.join(too_slow)}", file=sys.stderr)
PYTHON
