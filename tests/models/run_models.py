#!/usr/bin/env python3
"""Runs the models export_models.py wrote through kiln and compares with PyTorch.

For each model folder (model.onnx, input_K.npy, expected_K.npy):

  import   kiln-import-onnx model.onnx -o WORK/model.mlir --param-file=WORK/model.safetensors
           (initializers above --param-threshold go to the safetensors file)
  compile  kiln-compile model.mlir --iree-hal-target-backends=<the device's> -o model.kmod
  run      kiln-run-module --module=model.kmod --device=D --function=<the graph's>
           --parameters=model=WORK/model.safetensors --input=@input_K.npy ...
           --output=@WORK/output_K.npy (one per expected output)
  compare  each output against PyTorch's: the same shape, then
           max relative error = max|kiln - torch| / max|torch| <= --tolerance (1e-3);
           the max absolute error is printed too

and prints each stage's time. A model passes when every stage does. --out
writes every outcome as JSON. Exit status 1 when a model fails.

Only numpy is needed here (no onnx, no torch).

usage: run_models.py --models-dir DIR --bin-dir BUILD/bin [--device cpu|cuda|vulkan]
           [--models resnet50,gpt2,bert] [--work-dir DIR] [--timeout S] [--out FILE.json]
           [--compile-flag=--library-calls=false ...]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

BACKENDS = {"cpu": "llvm-cpu", "vulkan": "vulkan-spirv", "cuda": "cuda"}
FUNCTION = re.compile(r"^\s*func\.func\s+(?:public\s+)?@(\"[^\"]*\"|[\w$.\-]+)\s*\(", re.M)


class StageError(Exception):
    def __init__(self, stage, message):
        super().__init__(message)
        self.stage = stage


def tail(output, lines=8):
    kept = [l for l in output.splitlines() if l.strip()]
    errors = [l for l in kept if "error" in l.lower()]
    return "\n".join((errors or kept)[:lines]) or "(no output)"


def run_step(stage, cmd, timeout, times, verbose):
    if verbose:
        print("  + " + " ".join(cmd), flush=True)
    start = time.time()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        times[stage] = time.time() - start
        raise StageError(stage, "timed out after %d s" % timeout)
    times[stage] = time.time() - start
    output = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise StageError(stage, "exit %d:\n%s" % (proc.returncode, tail(output)))
    return output


def numbered(folder, prefix):
    count = len(glob.glob(os.path.join(folder, prefix + "_*.npy")))
    return [os.path.join(folder, "%s_%d.npy" % (prefix, k)) for k in range(count)]


def compare(expected, actual, tolerance):
    """(ok, max_abs, max_rel, note) for one output."""
    if actual.shape != expected.shape:
        return False, None, None, "shape %s, expected %s" % (actual.shape, expected.shape)
    a = actual.astype(np.float64)
    b = expected.astype(np.float64)
    if not np.all(np.isfinite(a)):
        return False, None, None, "%d non-finite values" % int(np.sum(~np.isfinite(a)))
    max_abs = float(np.max(np.abs(a - b))) if a.size else 0.0
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else float("inf"))
    note = "" if actual.dtype == expected.dtype else \
        "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    return max_rel <= tolerance, max_abs, max_rel, note


def run_model(folder, args):
    name = os.path.basename(os.path.normpath(folder))
    work = os.path.join(args.work_dir, name)
    os.makedirs(work, exist_ok=True)
    outcome = {"model": name, "passed": False, "stage": None, "message": "", "seconds": {},
               "outputs": []}
    times = outcome["seconds"]
    print("%s:" % name, flush=True)
    try:
        mlir = os.path.join(work, "model.mlir")
        params = os.path.join(work, "model.safetensors")
        kmod = os.path.join(work, "model.kmod")
        if os.path.exists(params):
            os.remove(params)  # a stale file from an earlier run is not this import's
        run_step("import", [os.path.join(args.bin_dir, "kiln-import-onnx"),
                            os.path.join(folder, "model.onnx"), "-o", mlir,
                            "--param-file=" + params,
                            "--param-threshold=%d" % args.param_threshold],
                 args.timeout, times, args.verbose)
        function = None
        with open(mlir) as f:
            for line in f:
                match = FUNCTION.match(line)
                if match:
                    function = match.group(1).strip('"')
                    break
        if not function:
            raise StageError("import", "no func.func in " + mlir)
        run_step("compile", [os.path.join(args.bin_dir, "kiln-compile"), mlir,
                             "--iree-hal-target-backends=" + BACKENDS[args.device], "-o", kmod] +
                 args.compile_flag, args.timeout, times, args.verbose)

        inputs = numbered(folder, "input")
        expected = numbered(folder, "expected")
        if not expected:
            raise StageError("run", "no expected_K.npy in " + folder)
        outputs = [os.path.join(work, "output_%d.npy" % k) for k in range(len(expected))]
        for path in outputs:
            if os.path.exists(path):
                os.remove(path)
        cmd = [os.path.join(args.bin_dir, "kiln-run-module"), "--module=" + kmod,
               "--device=" + args.device, "--function=" + function]
        if os.path.exists(params):
            cmd.append("--parameters=model=" + params)
        cmd += ["--input=@" + p for p in inputs] + ["--output=@" + p for p in outputs]
        run_step("run", cmd, args.timeout, times, args.verbose)

        failed = []
        for k, (e, o) in enumerate(zip(expected, outputs)):
            ok, max_abs, max_rel, note = compare(np.load(e), np.load(o), args.tolerance)
            outcome["outputs"].append({"index": k, "passed": ok, "max_abs": max_abs,
                                       "max_rel": max_rel, "note": note})
            if max_rel is None:
                print("  output %d: %s" % (k, note))
            else:
                print("  output %d: max rel error %.3g (max|kiln-torch| / max|torch|), max abs "
                      "error %.3g%s%s" % (k, max_rel, max_abs,
                                          "" if ok else "  > %g" % args.tolerance,
                                          "; " + note if note else ""))
            if not ok:
                failed.append("output %d: %s" % (k, note or "max rel error %.3g > %g" %
                                                 (max_rel, args.tolerance)))
        if failed:
            raise StageError("compare", "; ".join(failed))
        outcome["passed"] = True
    except StageError as e:
        outcome["stage"], outcome["message"] = e.stage, str(e)
    except (OSError, ValueError) as e:
        outcome["stage"], outcome["message"] = "compare", "%s: %s" % (type(e).__name__, e)
    print("  " + ", ".join("%s %.1f s" % (s, t) for s, t in times.items()))
    if outcome["passed"]:
        print("  PASSED")
    else:
        print("  FAILED at %s: %s" % (outcome["stage"], outcome["message"]))
    sys.stdout.flush()
    return outcome


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compile-flag", action="append", default=[],
                        help="one more kiln-compile flag (repeatable), e.g. --library-calls=false")
    parser.add_argument("--models-dir", required=True,
                        help="export_models.py's --out: one folder per model")
    parser.add_argument("--bin-dir", required=True,
                        help="folder of kiln-import-onnx, kiln-compile, kiln-run-module")
    parser.add_argument("--device", default="cpu", choices=sorted(BACKENDS))
    parser.add_argument("--models", default="", help="comma-separated (default: every folder)")
    parser.add_argument("--work-dir", default="/tmp/kiln-models",
                        help="where the .mlir, .safetensors, .kmod and outputs go")
    parser.add_argument("--param-threshold", type=int, default=1024,
                        help="initializers above this many bytes go to the safetensors file")
    parser.add_argument("--tolerance", type=float, default=1e-3,
                        help="the largest max relative error that passes")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per stage")
    parser.add_argument("--out", help="write every outcome to this JSON file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each command")
    args = parser.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)

    if args.models:
        folders = [os.path.join(args.models_dir, m) for m in args.models.split(",") if m]
    else:
        folders = sorted(os.path.dirname(p) for p in
                         glob.glob(os.path.join(args.models_dir, "*", "model.onnx")))
    missing = [f for f in folders if not os.path.isfile(os.path.join(f, "model.onnx"))]
    if missing or not folders:
        sys.exit("run_models.py: no model.onnx in %s (run export_models.py first)" %
                 (", ".join(missing) or args.models_dir))

    outcomes = [run_model(f, args) for f in folders]
    passed = sum(o["passed"] for o in outcomes)
    print("\n%-10s %-8s %9s %9s %9s %12s %12s" %
          ("model", "result", "import s", "compile s", "run s", "max rel err", "max abs err"))
    for o in outcomes:
        s = o["seconds"]
        rels = [x["max_rel"] for x in o["outputs"] if x["max_rel"] is not None]
        abss = [x["max_abs"] for x in o["outputs"] if x["max_abs"] is not None]
        cell = lambda k: "%9.1f" % s[k] if k in s else "%9s" % "-"
        print("%-10s %-8s %s %s %s %12s %12s" %
              (o["model"], "passed" if o["passed"] else "FAILED:" + (o["stage"] or ""),
               cell("import"), cell("compile"), cell("run"),
               "%.3g" % max(rels) if rels else "-", "%.3g" % max(abss) if abss else "-"))
    print("passed %d/%d on %s" % (passed, len(outcomes), args.device))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"device": args.device, "tolerance": args.tolerance, "models": outcomes},
                      f, indent=1)
    return 0 if passed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
