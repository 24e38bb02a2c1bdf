#!/usr/bin/python3
"""Runs every shell block of every README.md in the repository, as written.

A block is a fenced code block whose info string is `sh`, `bash` or `console`.
Each block runs as one bash script under `set -e -o pipefail`, from the
repository root, with the build's bin folder first on PATH, HOME and TMPDIR in
a fresh temporary folder, and a time limit. The test fails naming the README,
the line and the command that failed, with its stderr.

A `console` block is a transcript: its `$ ` lines (with their `\\`
continuations) are commands, and the lines after a command, up to the next
`$ `, are what the command prints (stdout and stderr together). The test runs
the commands and compares what each printed with its transcript, line by line
(a run of spaces matches any run of spaces, so columns may shift; trailing
spaces are ignored); a line `...` stands for any number of lines, and
`…` inside a line for any text (timings, paths). A command may exit non-zero
only when its transcript shows output (a failing check, an error message),
which is then what is checked; without output it must succeed.

READMEs write their outputs under /tmp (`/tmp/kiln-install`, `/tmp/demo.kmod`).
The test rewrites every `/tmp/` path to a private scratch folder, one per
README and shared by its blocks in order, so that a run never sees files that
an earlier run, another checkout or the reader left in /tmp (a CMake cache
made from another source folder, say), and two runs never collide.

Blocks that cannot run here say so on the line before their fence:

    <!-- readme-test: skip (needs a GPU) -->
    ```sh

and are listed as skipped with the reason. Skip a block only when it needs a
GPU, the network, or builds a whole tree (./kiln.sh demo|test|asan, presets,
fresh configures); everything else must run.

READMEs write `build/bin/...`: they assume the build folder is `build` at the
repository root. With any other build folder (--build-dir) the test reports
itself skipped (exit 77) rather than run the blocks against the wrong build.

A block must not write into the source tree: files that appear in it while a
block runs (outside build*/, .git, .scratch) fail the block.

Usage:
  readme_commands.py --build-dir BUILD [--source-dir SRC] [--filter REGEX]
                     [--timeout SECONDS] [--list] [-v]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SKIP_EXIT = 77
RUN_LANGS = {"sh", "bash", "console"}
SKIP_DIRS = {".git", ".scratch", "gpu-pack", "gpu-mini", "node_modules", "__pycache__"}
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([^\s`]*)")
SKIP_MARK = re.compile(r"^\s*<!--\s*readme-test:\s*skip\s*(?:\((.*)\))?\s*-->\s*$")


def is_skipped_dir(name):
    return name in SKIP_DIRS or name.startswith("build")


def find_readmes(root):
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not is_skipped_dir(d))
        if "README.md" in filenames:
            found.append(os.path.relpath(os.path.join(dirpath, "README.md"), root))
    return sorted(found)


class Block:
    def __init__(self, readme, line, lang, lines, skip_reason):
        self.readme = readme
        self.line = line  # 1-based line of the opening fence
        self.lang = lang
        self.lines = lines  # [(line number, text)]
        self.skip_reason = skip_reason

    @property
    def where(self):
        return f"{self.readme}:{self.line}"

    def commands(self):
        """[(line number, command text)] of what the block runs."""
        if self.lang != "console":
            return self.lines
        out, cont = [], False
        for number, text in self.lines:
            if cont:
                out.append((number, text))
            elif text.startswith("$ "):
                out.append((number, text[2:]))
            else:
                continue
            cont = text.rstrip().endswith("\\")
        return out


def parse_blocks(root, readme):
    with open(os.path.join(root, readme), encoding="utf-8") as f:
        text = f.read().splitlines()
    blocks, i = [], 0
    while i < len(text):
        m = FENCE.match(text[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(text):
            closing = text[i].strip()
            if closing.startswith(fence[0] * len(fence)) and closing.strip(fence[0]) == "":
                break
            line = text[i]
            if indent and line.startswith(indent):
                line = line[len(indent):]
            body.append((i + 1, line))
            i += 1
        i += 1
        if lang not in RUN_LANGS:
            continue
        skip = None
        if start > 0:
            mark = SKIP_MARK.match(text[start - 1])
            if mark:
                skip = (mark.group(1) or "no reason given").strip()
        blocks.append(Block(readme, start + 1, lang, body, skip))
    return blocks


TMP_PATH = re.compile(r"(?<![\w./-])/tmp(?=/|\s|$|[\"';&|)])")


def private_tmp(text, scratch):
    """`text` with each /tmp path moved under `scratch` (see the module doc)."""
    return TMP_PATH.sub(lambda _: scratch, text)


def transcript(block):
    """[(line number, command lines, expected output lines)] of a console block."""
    entries, command, expected, cont = [], None, None, False
    for number, text in block.lines:
        if cont:
            command.append(text)
        elif text.startswith("$ "):
            command, expected = [text[2:]], []
            entries.append((number, command, expected))
        else:
            if expected is not None:
                expected.append(text)
            continue
        cont = text.rstrip().endswith("\\")
    for _, _, expected in entries:
        while expected and not expected[-1].strip():
            expected.pop()
    return entries


def console_script_for(block, scratch, outputs):
    """Runs each transcript command with its output to outputs/LINE and its
    non-zero exit status to outputs/LINE.status."""
    lines = []
    for number, command, _ in transcript(block):
        lines.append(f"KILN_README_LINE={number}")
        lines.append("{ " + private_tmp(command[0], scratch))
        lines.extend(private_tmp(text, scratch) for text in command[1:])
        lines.append(f'}} > "{outputs}/{number}" 2>&1 < /dev/null || '
                     f'echo $? > "{outputs}/{number}.status"')
    return "\n".join(lines) + "\n"


def output_matches(expected, actual):
    """Whether `actual` lines fit the `expected` transcript lines (`...`
    lines: any number of lines; `…` in a line: any text)."""
    def line_fits(pattern, text):
        # Runs of spaces match runs of spaces (columns shift with the width
        # of a timing); `…` matches any text.
        regex = "".join(r"\s+" if part.isspace() else ".*" if part == "…" else re.escape(part)
                        for part in re.split(r"(\s+|…)", pattern.rstrip()) if part)
        return re.fullmatch(regex, text.rstrip()) is not None

    def fits(i, j):
        if i == len(expected):
            return j == len(actual)
        if expected[i].strip() == "...":
            return any(fits(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and line_fits(expected[i], actual[j]) and fits(i + 1, j + 1)

    return fits(0, 0)


def check_transcript(block, scratch, outputs):
    """None when every command of the console block printed its transcript."""
    for number, command, expected in transcript(block):
        where = f"{block.readme}:{number}"
        shown = "\n  command:\n" + indent_text("\n".join(command), "    $ ")
        path = os.path.join(outputs, str(number))
        if not os.path.exists(path):
            return f"{where}: the command did not run{shown}"
        with open(path, encoding="utf-8", errors="replace") as f:
            actual = [line.replace(scratch, "/tmp") for line in f.read().splitlines()]
        while actual and not actual[-1].strip():
            actual.pop()
        status_path = path + ".status"
        status = None
        if os.path.exists(status_path):
            with open(status_path) as f:
                status = f.read().strip()
        if status is not None and not expected:
            return (f"{where}: exit status {status}{shown}\n  output:\n" +
                    indent_text(tail("\n".join(actual)) or "(empty)", "    "))
        if expected and not output_matches(expected, actual):
            return (f"{where}: the output differs from the README's{shown}\n  README:\n" +
                    indent_text("\n".join(expected), "    ") + "\n  printed:\n" +
                    indent_text(tail("\n".join(actual), 60) or "(empty)", "    "))
    return None


def script_for(block, scratch):
    """A bash script that runs the block and, on failure, names the line."""
    lines = ["set -e -o pipefail",
             "trap 'echo \"readme-test-failed-line=$KILN_README_LINE\" >&2' ERR"]
    commands = block.commands()
    # Mark each top-level command with its README line. A command continues
    # over `\` line ends and open here-documents; those lines are left alone.
    heredoc_end = None
    continued = False
    for number, text in commands:
        if heredoc_end is not None:
            lines.append(private_tmp(text, scratch))
            if text.strip() == heredoc_end:
                heredoc_end = None
            continue
        if not continued and text.strip() and not text.lstrip().startswith("#"):
            lines.append(f"KILN_README_LINE={number}")
        lines.append(private_tmp(text, scratch))
        m = re.search(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", text)
        if m and not continued:
            heredoc_end = m.group(2)
        continued = text.rstrip().endswith("\\")
    return "\n".join(lines) + "\n"


def snapshot(root):
    """Files of the source tree (outside build folders and the like)."""
    files = set()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not is_skipped_dir(d)]
        for name in filenames:
            files.add(os.path.relpath(os.path.join(dirpath, name), root))
    return files


def command_at(block, line):
    """The command (with its continuation lines) that starts at README line `line`."""
    commands = block.commands()
    for index, (number, _) in enumerate(commands):
        if number != line:
            continue
        out = []
        for _, text in commands[index:]:
            out.append(text)
            if not text.rstrip().endswith("\\"):
                break
        return "\n".join(out)
    return None


def run_block(block, root, bin_dir, scratch, timeout, verbose):
    """Returns None on success, else a message."""
    with tempfile.TemporaryDirectory(prefix="kiln-readme-") as tmp:
        home = os.path.join(tmp, "home")
        tmpdir = os.path.join(tmp, "tmp")
        os.makedirs(home)
        os.makedirs(tmpdir)
        env = dict(os.environ)
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        env["HOME"] = home
        env["TMPDIR"] = tmpdir
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("KILN_README_LINE", None)
        outputs = os.path.join(tmp, "outputs")
        os.makedirs(outputs)
        script = console_script_for(block, scratch, outputs) if block.lang == "console" \
            else script_for(block, scratch)
        before = snapshot(root)
        start = time.monotonic()
        try:
            proc = subprocess.run(["bash", "-c", script], cwd=root, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, errors="replace", timeout=timeout)
        except subprocess.TimeoutExpired as e:
            stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) \
                else (e.stderr or "")
            return (f"timed out after {timeout} s\n" + indent_text(tail(stderr)))
        elapsed = time.monotonic() - start
        created = sorted(snapshot(root) - before)
        if verbose:
            print(f"    ({elapsed:.1f} s)")
            if proc.stdout:
                print(indent_text(tail(proc.stdout, 40)))
        if proc.returncode != 0:
            stderr = proc.stderr
            m = re.findall(r"readme-test-failed-line=(\d+)", stderr)
            stderr = re.sub(r"readme-test-failed-line=\d*\n?", "", stderr)
            where = block.where
            command = None
            if m and m[-1]:
                line = int(m[-1])
                where = f"{block.readme}:{line}"
                command = command_at(block, line)
            msg = f"{where}: exit status {proc.returncode}"
            if command:
                msg += "\n  command:\n" + indent_text(command, "    $ ")
            msg += "\n  stderr:\n" + indent_text(tail(stderr) or "(empty)", "    ")
            if not stderr.strip() and proc.stdout.strip():
                msg += "\n  stdout:\n" + indent_text(tail(proc.stdout), "    ")
            if created:
                msg += "\n  and it wrote into the source tree:\n" + indent_text("\n".join(created), "    ")
            return msg
        if block.lang == "console":
            mismatch = check_transcript(block, scratch, outputs)
            if mismatch:
                return mismatch
        if created:
            return (f"{block.where}: the block wrote into the source tree (write under /tmp "
                    "or the build folder instead):\n" + indent_text("\n".join(created), "    "))
    return None


def tail(text, lines=30):
    parts = text.rstrip("\n").splitlines()
    if len(parts) > lines:
        parts = [f"... ({len(parts) - lines} lines before)"] + parts[-lines:]
    return "\n".join(parts)


def indent_text(text, prefix="    "):
    return "\n".join(prefix + line for line in text.splitlines())


def run_one(b, root, bin_dir, scratch, args, failures, skipped):
    """Runs one block (or lists it as skipped), appending any failure."""
    if b.skip_reason:
        skipped.append(b)
        print(f"SKIP {b.where}: {b.skip_reason}")
        return
    if not b.commands():
        return
    print(f"RUN  {b.where}", flush=True)
    error = run_block(b, root, bin_dir, scratch, args.timeout, args.verbose)
    if error:
        failures.append(error)
        print("FAIL " + error, flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", required=True, help="the build folder (CMAKE_BINARY_DIR)")
    parser.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(here)),
                        help="the repository root (default: the one holding this script)")
    parser.add_argument("--filter", help="run only blocks whose README:line matches this regex")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per block")
    parser.add_argument("--list", action="store_true", help="list the blocks, run nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each block's stdout")
    args = parser.parse_args()

    root = os.path.realpath(args.source_dir)
    build = os.path.realpath(args.build_dir)
    blocks = [b for readme in find_readmes(root) for b in parse_blocks(root, readme)]
    if args.filter:
        blocks = [b for b in blocks if re.search(args.filter, b.where)]

    if args.list:
        for b in blocks:
            state = f"skip ({b.skip_reason})" if b.skip_reason else "run"
            print(f"{b.where} [{b.lang}] {state}")
        return 0

    expected = os.path.realpath(os.path.join(root, "build"))
    if build != expected:
        print(f"SKIPPED: the READMEs' commands use build/bin/...: they run only against the "
              f"build folder {root}/build, not {build}.")
        return SKIP_EXIT
    bin_dir = os.path.join(build, "bin")
    if not os.path.isdir(bin_dir):
        print(f"error: {bin_dir} does not exist", file=sys.stderr)
        return 1
    if shutil.which("bash") is None:
        print("error: bash not found", file=sys.stderr)
        return 1

    failures, ran, skipped = [], 0, []
    scratch_root = tempfile.mkdtemp(prefix="kiln-readme-tmp-")
    scratch_of = {}
    try:
        for b in blocks:
            if b.readme not in scratch_of:
                scratch_of[b.readme] = os.path.join(scratch_root, str(len(scratch_of)))
                os.makedirs(scratch_of[b.readme])
            run_one(b, root, bin_dir, scratch_of[b.readme], args, failures, skipped)
            ran += 0 if b.skip_reason or not b.commands() else 1
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)

    print(f"\n{ran} blocks run, {len(skipped)} skipped, {len(failures)} failed")
    if failures:
        print("\nFailures:")
        for f in failures:
            print(f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
