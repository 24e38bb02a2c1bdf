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

# No `exec`: the EXIT trap removes the compiled modules afterwards.
python3 - "${build_dir}/bin" "${script_dir}" "${work_dir}" << 'PYTHON'
import os
import re
import statistics
import sys

bin_dir, script_dir, work_dir = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, script_dir)
from bench_common import (EXPECTED, INPUT, LABEL, PROGRAMS, errors, exit_on_wrong_results,
                          run_kiln_builder, run_lua, run_round_robin)

RESULT_TYPE = {"fib": "i32", "loop": "i64"}


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


def run_one(runtime, name):
    if runtime == "kiln-mlir":
        return run_kiln_mlir(name)
    if runtime == "kiln-builder":
        return run_kiln_builder(f"{bin_dir}/kiln_vm_benchmark", name)[0]
    return run_lua(runtime.split(), script_dir, name)


RUNTIMES = ["kiln-mlir", "kiln-builder", "lua5.4", "luajit -joff"]
seconds = run_round_robin(RUNTIMES, run_one)
too_slow = []
for name in PROGRAMS:
    median = {r: statistics.median(seconds[(r, name)]) for r in RUNTIMES}
    mlir = median["kiln-mlir"]
    to_builder = mlir / median["kiln-builder"]
    print(f"{LABEL[name]:<9} kiln-mlir/luajit -joff = {mlir / median['luajit -joff']:.2f}   "
          f"kiln-mlir/lua5.4 = {mlir / median['lua5.4']:.2f}   "
          f"kiln-mlir/kiln-builder = {to_builder:.2f} "
          f"({'within 10%' if to_builder <= 1.10 else 'MORE THAN 10% SLOWER'})")
    if to_builder > 1.10:
        too_slow.append(LABEL[name])
exit_on_wrong_results()
if too_slow:
    print(f"\nnote: compiled code more than 10% slower than the builder-made bytecode on "
          f"{', '.join(too_slow)}", file=sys.stderr)
PYTHON
