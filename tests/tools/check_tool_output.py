#!/usr/bin/env python3
"""Runs one command and checks its exit code, standard output and standard error.

Usage: check_tool_output.py [checks...] -- COMMAND [ARGS...]

Checks (each may be repeated; all must hold):
  --exit-code=N          the exit code (default 0)
  --stdout=TEXT          stdout is exactly TEXT
  --stdout-matches=RE    RE (Python regex, multiline) matches somewhere in stdout
  --stdout-lacks=RE      RE matches nowhere in stdout
  --stderr=TEXT          stderr is exactly TEXT
  --stderr-matches=RE    RE matches somewhere in stderr
  --stderr-lines=N       stderr has exactly N lines
  --stdout-json          stdout parses as one JSON document
  --json-check=EXPR      a Python expression over `doc` (the parsed stdout) that must be true
  --stdin=FILE           feed FILE to the command's standard input

On failure it prints what was expected and what the command produced, and
exits 1. A command killed by a signal (a crash) always fails.
"""
import argparse
import json
import re
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print("usage: check_tool_output.py [checks...] -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit-code", type=int, default=0)
    parser.add_argument("--stdout")
    parser.add_argument("--stdout-matches", action="append", default=[])
    parser.add_argument("--stdout-lacks", action="append", default=[])
    parser.add_argument("--stderr")
    parser.add_argument("--stderr-matches", action="append", default=[])
    parser.add_argument("--stderr-lines", type=int)
    parser.add_argument("--stdout-json", action="store_true")
    parser.add_argument("--json-check", action="append", default=[])
    parser.add_argument("--stdin")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]

    stdin = open(args.stdin, "rb") if args.stdin else subprocess.DEVNULL
    proc = subprocess.run(command, stdin=stdin, capture_output=True, timeout=120)
    out = proc.stdout.decode("utf-8", errors="replace")
    err = proc.stderr.decode("utf-8", errors="replace")

    failures = []
    if proc.returncode < 0:
        failures.append(f"killed by signal {-proc.returncode}")
    if proc.returncode != args.exit_code:
        failures.append(f"exit code {proc.returncode}, expected {args.exit_code}")
    if args.stdout is not None and out != args.stdout:
        failures.append(f"stdout differs; expected:\n{args.stdout}")
    for pattern in args.stdout_matches:
        if not re.search(pattern, out, re.MULTILINE):
            failures.append(f"stdout does not match {pattern!r}")
    for pattern in args.stdout_lacks:
        if re.search(pattern, out, re.MULTILINE):
            failures.append(f"stdout matches {pattern!r}, which it must not")
    if args.stderr is not None and err != args.stderr:
        failures.append(f"stderr differs; expected:\n{args.stderr}")
    for pattern in args.stderr_matches:
        if not re.search(pattern, err, re.MULTILINE):
            failures.append(f"stderr does not match {pattern!r}")
    if args.stderr_lines is not None and len(err.splitlines()) != args.stderr_lines:
        failures.append(f"stderr has {len(err.splitlines())} lines, expected {args.stderr_lines}")
    if args.stdout_json or args.json_check:
        try:
            doc = json.loads(out)
        except ValueError as e:
            failures.append(f"stdout is not JSON: {e}")
        else:
            for expression in args.json_check:
                try:
                    ok = eval(expression, {}, {"doc": doc})
                except Exception as e:  # A check that raises is a failed check.
                    ok = False
                    failures.append(f"--json-check {expression!r} raised {e!r}")
                if not ok:
                    failures.append(f"--json-check {expression!r} is false")

    if failures:
        print("command: " + " ".join(command))
        print("FAILED:\n  " + "\n  ".join(failures))
        print(f"--- exit code: {proc.returncode}")
        print(f"--- stdout:\n{out}--- stderr:\n{err}---")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
