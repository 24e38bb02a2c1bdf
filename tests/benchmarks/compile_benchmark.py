#!/usr/bin/env python3
"""Compile-speed benchmark: kiln-compile's whole pipeline against
`mlir-opt-22 --canonicalize` of the same file (issue 13, item 8).

Two generated programs, each at full size and at half size (compile time must
grow linearly, so the full/half ratio should be about 2):

  program   100 functions of ~200 lines each (20,000 lines): constants, integer
            and float arithmetic, compares, scf.if with results, scf.for with
            iter_args, a call to the previous function.
  big_func  one function of 300,000 ops: a straight-line chain of integer and
            float arithmetic, compares and selects.

Each configuration runs REPETITIONS times round-robin (whole-process wall time:
reading, parsing, verification, every pass, code generation, writing the
.kmod / the IR); the script prints each time, the medians, kiln/mlir-opt ratios
and full/half ratios, then runs each compiled module once and checks its result
against the same computation in Python.

Usage: compile_benchmark.py BUILD_DIR [--mlir-opt=PATH] [--repetitions=N] [--quick]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

MASK = (1 << 64) - 1


def wrap(x):
    x &= MASK
    return x - (1 << 64) if x >> 63 else x


def group_lines(g, prev, indent="  "):
    """One arithmetic group (14 lines) reading `prev`; its result is %m<g>."""
    return [indent + line for line in [
        f"%a{g} = arith.muli {prev}, %c3 : i64",
        f"%b{g} = arith.addi %a{g}, %c1 : i64",
        f"%s{g} = arith.shrui %b{g}, %c1 : i64",
        f"%t{g} = arith.xori %s{g}, %b{g} : i64",
        f"%u{g} = arith.sitofp %t{g} : i64 to f64",
        f"%v{g} = arith.mulf %u{g}, %h : f64",
        f"%w{g} = arith.fptosi %v{g} : f64 to i64",
        f"%n{g} = arith.cmpi slt, %w{g}, %c0 : i64",
        f"%r{g} = scf.if %n{g} -> (i64) {{",
        f"  %neg{g} = arith.subi %c0, %w{g} : i64",
        f"  scf.yield %neg{g} : i64",
        "} else {",
        f"  scf.yield %w{g} : i64",
        "}",
        f"%m{g} = arith.remui %r{g}, %c8 : i64",
    ]]


def model_group(v, c3):
    a = wrap(v * c3)
    b = wrap(a + 1)
    s = (b & MASK) >> 1
    t = wrap(s ^ (b & MASK))
    w = int(float(t) * 0.5)  # sitofp rounds to nearest; fptosi truncates toward zero.
    r = -w if w < 0 else w
    return (r & MASK) % 8


def constants(k):
    return ["  %c0 = arith.constant 0 : i64", "  %c1 = arith.constant 1 : i64",
            f"  %c3 = arith.constant {3 + k % 5} : i64", "  %c8 = arith.constant 8 : i64",
            "  %h = arith.constant 0.5 : f64"]


def program(functions, groups=13):
    """`functions` functions f<k>(x) chained by calls, and @main."""
    lines = []
    for k in range(functions):
        lines += [f"func.func @f{k}(%x: i64) -> i64 {{"] + constants(k)
        prev = "%x"
        for g in range(groups):
            lines += group_lines(g, prev)
            prev = f"%m{g}"
        lines += [
            f"  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = {prev}) -> (i64) : i64 {{",
            "    %p = arith.muli %acc, %c3 : i64", "    %q = arith.addi %p, %i : i64",
            "    scf.yield %q : i64", "  }"]
        if k > 0:
            lines += [f"  %inner = func.call @f{k - 1}(%sum) : (i64) -> i64",
                      "  %out = arith.addi %inner, %c1 : i64", "  return %out : i64", "}"]
        else:
            lines += ["  return %sum : i64", "}"]
    lines += ["func.func @main(%x: i64) -> i64 {",
              f"  %r = func.call @f{functions - 1}(%x) : (i64) -> i64", "  return %r : i64", "}"]

    def model(x):
        result = None
        # f0 is innermost: main calls f<n-1>, which calls f<n-2> on its sum, ...
        value, depth_adds = x, 0
        for k in range(functions - 1, -1, -1):
            c3 = 3 + k % 5
            v = value
            for _ in range(groups):
                v = model_group(v, c3)
            acc = v
            for i in range(8):
                acc = wrap(wrap(acc * c3) + i)
            value = acc
            if k > 0:
                depth_adds += 1
        result = wrap(value + depth_adds)
        return result
    return lines, model


def big_function(ops):
    """One function of about `ops` operations: a straight-line chain."""
    lines = ["func.func @main(%x: i64) -> i64 {"] + constants(0)
    prev, count, g = "%x", 5, 0
    while count < ops:
        lines += [
            f"  %a{g} = arith.muli {prev}, %c3 : i64",
            f"  %b{g} = arith.addi %a{g}, %c1 : i64",
            f"  %s{g} = arith.shrui %b{g}, %c1 : i64",
            f"  %t{g} = arith.xori %s{g}, %b{g} : i64",
            f"  %u{g} = arith.sitofp %t{g} : i64 to f64",
            f"  %v{g} = arith.mulf %u{g}, %h : f64",
            f"  %w{g} = arith.fptosi %v{g} : f64 to i64",
            f"  %n{g} = arith.cmpi slt, %w{g}, %c0 : i64",
            f"  %neg{g} = arith.subi %c0, %w{g} : i64",
            f"  %r{g} = arith.select %n{g}, %neg{g}, %w{g} : i64",
            f"  %m{g} = arith.remui %r{g}, %c8 : i64",
        ]
        prev, count, g = f"%m{g}", count + 11, g + 1
    lines += [f"  return {prev} : i64", "}"]
    groups = g

    def model(x):
        v = x
        for _ in range(groups):
            v = model_group(v, 3)
        return v
    return lines, model, count + 1


def run_timed(command):
    start = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"error: {' '.join(command)} failed:\n{proc.stderr[:4000]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir")
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one repetition: checks the script and results only")
    args = parser.parse_args()
    compile_tool = os.path.join(args.build_dir, "bin", "kiln-compile")
    run_tool = os.path.join(args.build_dir, "bin", "kiln-run-module")
    for tool in (compile_tool, run_tool, args.mlir_opt):
        if not os.path.exists(tool):
            sys.exit(f"error: {tool} not found")
    reps = 1 if args.quick else args.repetitions
    n_functions = 4 if args.quick else 100
    n_ops = 3000 if args.quick else 300000

    work = tempfile.mkdtemp(prefix="kiln-compile-bench-")
    cases = {}
    for name, scale in (("program", 1.0), ("program/2", 0.5)):
        lines, model = program(max(1, int(n_functions * scale)))
        cases[name] = (lines, model, f"{len(lines)} lines, {int(n_functions * scale)} functions")
    for name, scale in (("big_func", 1.0), ("big_func/2", 0.5)):
        lines, model, count = big_function(int(n_ops * scale))
        cases[name] = (lines, model, f"1 function of {count} ops, {len(lines)} lines")
    for name, (lines, _, what) in cases.items():
        path = os.path.join(work, name.replace("/", "_half") + ".mlir")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{name}: {what}")

    tools = {
        "kiln-compile": lambda src: [compile_tool, src, "-o", src + ".kmod"],
        "mlir-opt --canonicalize": lambda src: [args.mlir_opt, src, "--canonicalize", "-o",
                                                src + ".opt.mlir"],
    }
    times = {(case, tool): [] for case in cases for tool in tools}
    for rep in range(reps):
        for case in cases:
            src = os.path.join(work, case.replace("/", "_half") + ".mlir")
            for tool, command in tools.items():
                t = run_timed(command(src))
                times[(case, tool)].append(t)
                print(f"rep {rep + 1}/{reps} {case:11} {tool:24} {t:8.3f} s", flush=True)

    print("\nmedians (s):")
    print(f"| case | kiln-compile | mlir-opt --canonicalize | kiln / mlir-opt |")
    print(f"| --- | --- | --- | --- |")
    med = {key: statistics.median(value) for key, value in times.items()}
    for case in cases:
        k, m = med[(case, "kiln-compile")], med[(case, "mlir-opt --canonicalize")]
        print(f"| {case} | {k:.3f} | {m:.3f} | {k / m:.2f} |")
    for case in ("program", "big_func"):
        print(f"growth {case}: full/half kiln-compile "
              f"{med[(case, 'kiln-compile')] / med[(case + '/2', 'kiln-compile')]:.2f}, "
              f"mlir-opt {med[(case, 'mlir-opt --canonicalize')] / med[(case + '/2', 'mlir-opt --canonicalize')]:.2f}")

    failures = 0
    for case, (_, model, _) in cases.items():
        src = os.path.join(work, case.replace("/", "_half") + ".mlir")
        expected = model(7)
        proc = subprocess.run([run_tool, f"--module={src}.kmod", "--function=main",
                               "--input=i64=7"], capture_output=True, text=True)
        want = f"EXEC @main\nresult[0]: i64={expected}\n"
        if proc.returncode != 0 or proc.stdout != want:
            print(f"error: {case}: compiled main(7) returned {proc.stdout!r}{proc.stderr}, "
                  f"expected {want!r}", file=sys.stderr)
            failures += 1
        else:
            print(f"{case}: compiled main(7) = {expected}, matches the Python model")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
