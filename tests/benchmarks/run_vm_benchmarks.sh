#!/usr/bin/env bash
# Times kiln's interpreter against lua5.4 and luajit -joff (LuaJIT's
# interpreter) on a recursive fib(32) and a 10^8-iteration integer loop.
#
# Usage: tests/benchmarks/run_vm_benchmarks.sh [BUILD_DIR]   (default: build-release)
#
# Runs 5 repetitions of 6 configurations (kiln, lua5.4, luajit -joff) x (fib,
# loop), round-robin: each repetition runs every configuration once, so
# machine noise hits all of them evenly. Every run is its own process and
# reports the CPU seconds of just the computation (kiln: Google Benchmark's
# cpu_time of one invocation; Lua: os.clock() around the call). Prints the
# median/min/max of each configuration, kiln's ratio to each Lua, and kiln's
# ns per executed VM instruction. Exits non-zero if any run fails or computes
# a wrong result.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build_dir="${1:-build-release}"
benchmark="${build_dir}/bin/kiln_vm_benchmark"
if [[ ! -x "${benchmark}" ]]; then
  echo "error: ${benchmark} not found; build it first:" >&2
  echo "  cmake --preset release && cmake --build ${build_dir} --target kiln_vm_benchmark" >&2
  exit 1
fi
for tool in lua5.4 luajit python3; do
  if ! command -v "${tool}" > /dev/null; then
    echo "error: ${tool} not found (Debian packages: lua5.4, luajit, python3)" >&2
    exit 1
  fi
done

exec python3 - "${benchmark}" "${script_dir}" << 'PYTHON'
import json
import re
import statistics
import subprocess
import sys

benchmark, script_dir = sys.argv[1], sys.argv[2]
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
errors = []


def run(command):
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {proc.returncode}:\n"
                           f"{proc.stdout}{proc.stderr}")
    return proc.stdout


def run_kiln(name):
    """Returns (result check passed, CPU seconds, ns per instruction)."""
    filter_name = {"fib": "BM_Fib32", "loop": "BM_Loop1e8"}[name]
    out = run([benchmark, f"--benchmark_filter=^{filter_name}/", "--repetitions=1",
               "--benchmark_format=json"])
    runs = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]
    if len(runs) != 1 or runs[0].get("error_occurred"):
        raise RuntimeError(f"kiln {name}: {runs}")
    r = runs[0]
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[r["time_unit"]]
    # The benchmark itself checks the result and fails (non-zero exit) if wrong.
    return r["cpu_time"] * scale, r["ns_per_instruction"], r["instructions"]


def run_lua(interpreter, name):
    out = run(interpreter + [f"{script_dir}/{name}.lua"])
    m = re.fullmatch(r"result=(-?\d+) seconds=([0-9.]+)\s*", out)
    if not m:
        raise RuntimeError(f"unexpected output from {' '.join(interpreter)} {name}.lua: {out!r}")
    if int(m.group(1)) != EXPECTED[name]:
        errors.append(f"{' '.join(interpreter)} {name}.lua returned {m.group(1)}, "
                      f"expected {EXPECTED[name]}")
    return float(m.group(2))


CONFIGS = [
    ("kiln", "fib"), ("kiln", "loop"),
    ("lua5.4", "fib"), ("lua5.4", "loop"),
    ("luajit -joff", "fib"), ("luajit -joff", "loop"),
]
seconds = {c: [] for c in CONFIGS}
ns_per_instruction = {"fib": [], "loop": []}
instructions = {}

try:
    for rep in range(REPETITIONS):
        for config in CONFIGS:
            runtime, name = config
            if runtime == "kiln":
                s, ns, count = run_kiln(name)
                ns_per_instruction[name].append(ns)
                instructions[name] = int(count)
            else:
                s = run_lua(runtime.split(), name)
            seconds[config].append(s)
        print(f"repetition {rep + 1}/{REPETITIONS}: " +
              "  ".join(f"{r} {n} {seconds[(r, n)][-1]:.3f}s" for r, n in CONFIGS),
              flush=True)
except RuntimeError as e:
    print(f"error: {e}", file=sys.stderr)
    sys.exit(1)

label = {"fib": f"fib({FIB_N})", "loop": f"loop 1e8"}
print()
print(f"{'configuration':<24} {'median s':>9} {'min s':>9} {'max s':>9}   (CPU seconds, "
      f"{REPETITIONS} runs each)")
for runtime, name in CONFIGS:
    v = seconds[(runtime, name)]
    print(f"{runtime + ' ' + label[name]:<24} {statistics.median(v):>9.3f} "
          f"{min(v):>9.3f} {max(v):>9.3f}")
print()
for name in ("fib", "loop"):
    kiln = statistics.median(seconds[("kiln", name)])
    jit = statistics.median(seconds[("luajit -joff", name)])
    lua = statistics.median(seconds[("lua5.4", name)])
    verdict = "faster" if kiln < jit else "SLOWER"
    print(f"{label[name]:<9} kiln/luajit -joff = {kiln / jit:.2f} ({verdict})   "
          f"kiln/lua5.4 = {kiln / lua:.2f}   kiln: {instructions[name]:,} instructions, "
          f"{statistics.median(ns_per_instruction[name]):.2f} ns/instruction (median)")

if errors:
    print("\nWRONG RESULTS:", *errors, sep="\n  ", file=sys.stderr)
    sys.exit(1)
PYTHON
