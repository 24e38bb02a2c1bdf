#!/usr/bin/env bash
# Times kiln-compile on a generated 20,000-line MLIR program.
#
# Usage: tests/benchmarks/run_compile_benchmark.sh [BUILD_DIR] [LINES]
#        (defaults: build-release, 20000)
#
# The program is 200-odd functions, each a mix of what users write: constants,
# integer and float arithmetic, compares, scf.if with results, scf.for with
# iter_args, calls to the previous function. It runs kiln-compile 5 times
# (whole process wall time: reading, parsing, verification, every pass, code
# generation and writing the .kmod), prints each time, the median and the
# median's lines per second, then runs the compiled `main` once and checks its
# result against the same computation in Python.
set -euo pipefail

build_dir="${1:-build-release}"
lines="${2:-20000}"
compile="${build_dir}/bin/kiln-compile"
run="${build_dir}/bin/kiln-run-module"
for tool in "${compile}" "${run}"; do
  if [[ ! -x "${tool}" ]]; then
    echo "error: ${tool} not found; build first (cmake --preset release && cmake --build ${build_dir})" >&2
    exit 1
  fi
done

work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

exec python3 - "${compile}" "${run}" "${work}" "${lines}" << 'PYTHON'
import statistics
import subprocess
import sys
import time

compile_tool, run_tool, work, target_lines = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
REPETITIONS = 5
MASK = (1 << 64) - 1


def wrap(x):
    x &= MASK
    return x - (1 << 64) if x >> 63 else x


# One function f<k>(x) built from a body template; returns (mlir lines, python model).
def function(k):
    callee = f"@f{k - 1}" if k > 0 else None
    body = [
        f"func.func @f{k}(%x: i64) -> i64 {{",
        "  %c0 = arith.constant 0 : i64",
        "  %c1 = arith.constant 1 : i64",
        f"  %c3 = arith.constant {3 + k % 5} : i64",
        "  %c8 = arith.constant 8 : i64",
        "  %h = arith.constant 0.5 : f64",
    ]
    # 16 straight-line arithmetic groups.
    prev = "%x"
    for g in range(16):
        body += [
            f"  %a{g} = arith.muli {prev}, %c3 : i64",
            f"  %b{g} = arith.addi %a{g}, %c1 : i64",
            f"  %s{g} = arith.shrui %b{g}, %c1 : i64",
            f"  %t{g} = arith.xori %s{g}, %b{g} : i64",
            f"  %u{g} = arith.sitofp %t{g} : i64 to f64",
            f"  %v{g} = arith.mulf %u{g}, %h : f64",
            f"  %w{g} = arith.fptosi %v{g} : f64 to i64",
            f"  %n{g} = arith.cmpi slt, %w{g}, %c0 : i64",
            f"  %r{g} = scf.if %n{g} -> (i64) {{",
            f"    %neg{g} = arith.subi %c0, %w{g} : i64",
            f"    scf.yield %neg{g} : i64",
            "  } else {",
            f"    scf.yield %w{g} : i64",
            "  }",
            f"  %m{g} = arith.remui %r{g}, %c8 : i64",
        ]
        prev = f"%m{g}"
    body += [
        f"  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = {prev}) -> (i64) : i64 {{",
        "    %p = arith.muli %acc, %c3 : i64",
        "    %q = arith.addi %p, %i : i64",
        "    scf.yield %q : i64",
        "  }",
    ]
    if callee:
        body += [f"  %inner = func.call {callee}(%sum) : (i64) -> i64",
                 "  %out = arith.addi %inner, %c1 : i64",
                 "  return %out : i64", "}"]
    else:
        body += ["  return %sum : i64", "}"]
    return body


def model(k, x):
    c3 = 3 + k % 5
    v = x
    for _ in range(16):
        a = wrap(v * c3)
        b = wrap(a + 1)
        s = (b & MASK) >> 1
        t = wrap(s ^ (b & MASK))
        w = int(float(t) * 0.5)  # sitofp rounds to nearest, fptosi truncates toward zero.
        r = -w if w < 0 else w
        v = (r & MASK) % 8
    acc = v
    for i in range(8):
        acc = wrap(wrap(acc * c3) + i)
    if k > 0:
        return wrap(model(k - 1, acc) + 1)
    return acc


lines, count = [], 0
while len(lines) < target_lines - 4:
    lines += function(count)
    count += 1
lines += ["func.func @main(%x: i64) -> i64 {",
          f"  %r = func.call @f{count - 1}(%x) : (i64) -> i64",
          "  return %r : i64", "}"]
source = f"{work}/generated.mlir"
with open(source, "w") as f:
    f.write("\n".join(lines) + "\n")
n_lines = len(lines)
print(f"generated {source}: {n_lines} lines, {count} functions")

times = []
for rep in range(REPETITIONS):
    start = time.perf_counter()
    proc = subprocess.run([compile_tool, source, "-o", f"{work}/generated.kmod"],
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        print(f"error: kiln-compile failed:\n{proc.stderr}", file=sys.stderr)
        sys.exit(1)
    times.append(elapsed)
    print(f"run {rep + 1}/{REPETITIONS}: {elapsed:.3f} s")
median = statistics.median(times)
print(f"kiln-compile {n_lines} lines: median {median:.3f} s (min {min(times):.3f}, "
      f"max {max(times):.3f}) = {n_lines / median:,.0f} lines/s")

sys.setrecursionlimit(10000)
expected = model(count - 1, 7)
proc = subprocess.run([run_tool, f"--module={work}/generated.kmod", "--function=main",
                       "--input=i64=7"], capture_output=True, text=True)
want = f"EXEC @main\nresult[0]: i64={expected}\n"
if proc.returncode != 0 or proc.stdout != want:
    print(f"error: compiled program returned {proc.stdout!r}{proc.stderr}, expected {want!r}",
          file=sys.stderr)
    sys.exit(1)
print(f"compiled main(7) = {expected}: matches the Python model")
PYTHON
