#!/usr/bin/env python3
"""Runs IREE's public end-to-end check tests through kiln and counts passes.

IREE (github.com/iree-org/iree) keeps end-to-end tests in linalg/tensor form
under tests/e2e/: files of `func.func @test() { ... check.expect_* ... }`.
They are not copied into kiln: point --iree-e2e at a checkout's tests/e2e (or
a copy of it). Each test function is compiled on its own (with the file's
globals and helper functions) by kiln-compile and run by kiln-check-module on
--device; a function passes when it compiles and kiln-check-module prints
`[       OK ]` for it.

Directories: linalg, tensor_ops, regression (its .mlir files; the stablehlo
subfolder is not linalg), rocm_specific, and math: the tests that
math/generate.py writes from math_ops_llvm-cpu.json (cpu) or
math_ops_rocm.json (the GPU targets).

Functions that take or return values are not check tests (IREE runs those
few with iree-run-mlir and FileCheck) and are not counted. A check test is
excluded (counted apart, not as a failure) when it needs what
the conformance goal leaves out: sub-byte integer types (i2..i7), f8/f6/f4
types, linalg.pack/linalg.unpack, or iree_linalg_ext ops; or it is not in
linalg form (a stablehlo op).

Prints per directory: eligible, passed, failed, excluded, and the pass rate;
with -v each failure's first error line. --out writes JSON with every
function's outcome.

usage: run_iree_e2e.py --iree-e2e DIR --bin-dir BUILD/bin --device cpu|vulkan|cuda [-v]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

DIRECTORIES = ["linalg", "tensor_ops", "regression", "rocm_specific", "math"]
BACKENDS = {"cpu": "llvm-cpu", "local-task": "llvm-cpu", "local-sync": "llvm-cpu",
            "vulkan": "vulkan-spirv", "cuda": "cuda"}
TOP_LEVEL = re.compile(r"^(func\.func|util\.func|util\.global|ml_program\.global|[#!]\w+\s*=)")
FUNCTION = re.compile(
    r"^(?:func\.func|util\.func)\s+(?:public\s+)?@([\w$.]+)\s*\((.*?)\)\s*(->\s*(?!\(\s*\))\S)?")
EXCLUDED = [
    (re.compile(r"[x<\s:,(](?:[su]?i[2-7])\b"), "sub-byte integer type"),
    (re.compile(r"f(?:8|6|4)E\d"), "f8/f6/f4 type"),
    (re.compile(r"\blinalg\.(?:pack|unpack)\b"), "linalg.pack/unpack"),
    (re.compile(r"\biree_linalg_ext\."), "iree_linalg_ext"),
    (re.compile(r"\bstablehlo\."), "stablehlo (not linalg)"),
]


def split_top_level(text):
    """The file's top-level items (globals, functions, attribute aliases)."""
    chunks, current = [], []
    preamble = []
    for line in text.splitlines(keepends=True):
        if TOP_LEVEL.match(line):
            if current:
                chunks.append("".join(current))
            current = [line]
        elif current:
            current.append(line)
        else:
            preamble.append(line)
    if current:
        chunks.append("".join(current))
    return chunks


def exclusion(text):
    for pattern, reason in EXCLUDED:
        if pattern.search(text):
            return reason
    return None


def first_error(output):
    for line in output.splitlines():
        if "error" in line.lower() or "FAILED" in line:
            return line.strip()[:300]
    lines = [l for l in output.splitlines() if l.strip()]
    return lines[-1].strip()[:300] if lines else "(no output)"


def run(cmd, timeout):
    try:
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                timeout=timeout)
        return result.returncode, result.stdout
    except subprocess.TimeoutExpired:
        return -1, "timed out after %d s" % timeout


def test_files(iree_e2e, directory, device, tmp):
    """(name, text) of each test file of `directory`."""
    path = os.path.join(iree_e2e, directory)
    if directory == "math":
        cases = "math_ops_llvm-cpu.json" if BACKENDS[device] == "llvm-cpu" else "math_ops_rocm.json"
        code, out = run([sys.executable, os.path.join(path, "generate.py"), "--testcases",
                         os.path.join(path, cases)], 120)
        if code != 0:
            sys.exit("run_iree_e2e.py: math/generate.py failed: " + out[-2000:])
        return [("math/" + cases.replace(".json", ".mlir"), out)]
    files = []
    for name in sorted(os.listdir(path)):
        if name.endswith(".mlir"):
            with open(os.path.join(path, name)) as f:
                files.append((directory + "/" + name, f.read()))
    return files


def run_function(bin_dir, device, file_name, support, function, chunk, tmp, timeout):
    base = os.path.join(tmp, re.sub(r"\W", "_", file_name + "_" + function))
    source, module = base + ".mlir", base + ".kmod"
    with open(source, "w") as f:
        f.write("".join(support) + chunk)
    code, out = run([os.path.join(bin_dir, "kiln-compile"), source,
                     "--iree-hal-target-backends=" + BACKENDS[device], "-o", module], timeout)
    if code != 0:
        return "compile", first_error(out)
    code, out = run([os.path.join(bin_dir, "kiln-check-module"), "--module=" + module,
                     "--device=" + device], timeout)
    ok = re.search(r"^\[\s+OK\s+\] \S*\b%s$" % re.escape(function), out, re.M)
    if code == 0 and ok:
        return "pass", ""
    return "run", first_error(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iree-e2e", required=True, help="IREE's tests/e2e directory")
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--device", required=True, choices=sorted(BACKENDS))
    parser.add_argument("--directories", default=",".join(DIRECTORIES))
    parser.add_argument("--filter", default="", help="only files whose name contains this")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--out")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for directory in args.directories.split(","):
            for file_name, text in test_files(args.iree_e2e, directory, args.device, tmp):
                if args.filter and args.filter not in file_name:
                    continue
                chunks = split_top_level(text)
                # Check tests: functions that take and return nothing (what
                # kiln-check-module runs, as iree-check-module does).
                functions = [(FUNCTION.match(c), c) for c in chunks]
                tests = [(m, c) for m, c in functions
                         if m and not m.group(2).strip() and not m.group(3)]
                support = [c for m, c in functions if (m, c) not in tests]
                for match, chunk in tests:
                    function = match.group(1)
                    reason = exclusion(chunk)
                    if reason:
                        outcome, detail = "excluded", reason
                    else:
                        outcome, detail = run_function(args.bin_dir, args.device, file_name,
                                                       support, function, chunk, tmp,
                                                       args.timeout)
                    results.append({"directory": directory, "file": file_name,
                                    "function": function, "outcome": outcome,
                                    "detail": detail})
                    if args.verbose and outcome not in ("pass", "excluded"):
                        print("FAIL %s @%s (%s): %s" % (file_name, function, outcome, detail))
                    sys.stdout.flush()

    print("IREE e2e on %s (%s):" % (args.device, BACKENDS[args.device]))
    print("%-14s %8s %7s %7s %9s %7s" % ("directory", "eligible", "passed", "failed",
                                         "excluded", "rate"))
    totals = [0, 0, 0, 0]
    for directory in args.directories.split(","):
        rows = [r for r in results if r["directory"] == directory]
        excluded = sum(r["outcome"] == "excluded" for r in rows)
        passed = sum(r["outcome"] == "pass" for r in rows)
        eligible = len(rows) - excluded
        failed = eligible - passed
        for k, v in enumerate((eligible, passed, failed, excluded)):
            totals[k] += v
        print("%-14s %8d %7d %7d %9d %6.1f%%" % (directory, eligible, passed, failed, excluded,
                                                100.0 * passed / eligible if eligible else 0))
    eligible, passed, failed, excluded = totals
    print("%-14s %8d %7d %7d %9d %6.1f%%" % ("total", eligible, passed, failed, excluded,
                                            100.0 * passed / eligible if eligible else 0))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": args.device, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
