#!/usr/bin/env python3
"""Flips single bits of a real .kmod and checks every copy is refused as corrupt.

    corrupted_module_sweep.py KILN_RUN_MODULE MODULE [--count N] [--seed S] -- RUN_ARGS...

Runs `KILN_RUN_MODULE --module=COPY RUN_ARGS...` once on the module as it is
(the control: it must succeed, so a refusal below is the corruption's doing),
then on COUNT copies, each with one bit flipped at a position drawn with a
fixed seed (failures reproduce). Every copy must exit with code 1 and one
`error: loading '...': module is corrupt: ...` line: a crash, a hang, a run
that succeeds or any other error fails the sweep, naming the bit.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


def run(tool, module, run_args, timeout):
    return subprocess.run([tool, f"--module={module}", *run_args], capture_output=True,
                          text=True, timeout=timeout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tool")
    parser.add_argument("module")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--timeout", type=float, default=20.0)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    run_args = argv[split + 1:]

    with open(args.module, "rb") as f:
        original = f.read()
    control = run(args.tool, args.module, run_args, args.timeout)
    if control.returncode != 0:
        print(f"control run failed (exit {control.returncode}):\n{control.stderr}")
        return 1

    generator = random.Random(args.seed)
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "corrupted.kmod")
        for i in range(args.count):
            bit = generator.randrange(len(original) * 8)
            corrupted = bytearray(original)
            corrupted[bit // 8] ^= 1 << (bit % 8)
            with open(path, "wb") as f:
                f.write(corrupted)
            what = f"copy {i}: bit {bit} (byte {bit // 8} of {len(original)})"
            try:
                result = run(args.tool, path, run_args, args.timeout)
            except subprocess.TimeoutExpired:
                failures.append(f"{what}: hung (no exit after {args.timeout} s)")
                continue
            lines = result.stderr.splitlines()
            refused = (result.returncode == 1 and len(lines) == 1 and
                       lines[0].startswith(f"error: loading '{path}': module is corrupt: "))
            if not refused:
                how = (f"killed by signal {-result.returncode}" if result.returncode < 0 else
                       f"exit {result.returncode}")
                failures.append(f"{what}: {how}, stderr: {result.stderr.strip()[:300]!r}")
    for failure in failures:
        print(failure)
    print(f"{args.count - len(failures)} of {args.count} single-bit corruptions of "
          f"{os.path.basename(args.module)} refused as corrupt")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
