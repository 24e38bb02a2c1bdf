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
import statistics
import sys

benchmark, script_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, script_dir)
from bench_common import (LABEL, PROGRAMS, exit_on_wrong_results, run_kiln_builder, run_lua,
                          run_round_robin)

ns_per_instruction = {name: [] for name in PROGRAMS}
instructions = {}


def run_one(runtime, name):
    if runtime == "kiln":
        s, ns, count = run_kiln_builder(benchmark, name)
        ns_per_instruction[name].append(ns)
        instructions[name] = count
        return s
    return run_lua(runtime.split(), script_dir, name)


seconds = run_round_robin(["kiln", "lua5.4", "luajit -joff"], run_one)
for name in PROGRAMS:
    kiln = statistics.median(seconds[("kiln", name)])
    jit = statistics.median(seconds[("luajit -joff", name)])
    lua = statistics.median(seconds[("lua5.4", name)])
    verdict = "faster" if kiln < jit else "SLOWER"
    print(f"{LABEL[name]:<9} kiln/luajit -joff = {kiln / jit:.2f} ({verdict})   "
          f"kiln/lua5.4 = {kiln / lua:.2f}   kiln: {instructions[name]:,} instructions, "
          f"{statistics.median(ns_per_instruction[name]):.2f} ns/instruction (median)")
exit_on_wrong_results()
PYTHON
