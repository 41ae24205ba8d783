#!/usr/bin/env python3
"""Mutation check: breaks the code on purpose, one edit at a time, and expects a test to fail.

For each mutant of mutants.toml: edit the source, rebuild the mutant's test binaries with
ninja, run the tests it names (a regular expression over Suite.Test) in those binaries. A
failing test kills the mutant; a mutant that survives names a behaviour no test checks. The source is put back byte for byte after each mutant,
even on Ctrl-C; a run that was killed outright leaves a journal that the next run restores
first. Rebuilds the tree: run it by hand, outside CI (see README.md).
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = Path(__file__).resolve().parent / "mutants.toml"
ALL_SKIPPED = 77  # a test program's exit when every test it ran skipped (tests/support)


@dataclass
class Mutant:
    name: str
    why: str
    file: str
    find: str
    replace: str
    targets: list
    tests: str


def load_mutants(path):
    with open(path, "rb") as f:
        return [Mutant(**entry) for entry in tomllib.load(f)["mutant"]]


def journal_path(build):
    return build / "mutants" / "journal.json"


def write_journal(build, source, original):
    journal = journal_path(build)
    journal.parent.mkdir(parents=True, exist_ok=True)
    journal.write_text(json.dumps({"file": str(source), "original": original.decode("latin-1")}))


def restore_from_journal(build):
    """Puts back a source that a killed run left mutated."""
    journal = journal_path(build)
    if not journal.exists():
        return
    entry = json.loads(journal.read_text())
    Path(entry["file"]).write_bytes(entry["original"].encode("latin-1"))
    journal.unlink()
    print(f"restored {entry['file']} from the journal of an interrupted run")


def mutated_text(mutant, original):
    text = original.decode("utf-8")
    count = text.count(mutant.find)
    if count != 1:
        return None, f"stale: the text to replace occurs {count} times in {mutant.file}"
    return text.replace(mutant.find, mutant.replace).encode("utf-8"), ""


def run(command, log, timeout, cwd=ROOT):
    with open(log, "a") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        try:
            return subprocess.run(command, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout, cwd=cwd).returncode
        except subprocess.TimeoutExpired:
            out.write(f"timed out after {timeout} s\n")
            return None


def build(build_dir, targets, log, jobs):
    command = ["nice", "-n", "10", "ninja", "-C", str(build_dir), f"-j{jobs}", *targets]
    return run(command, log, timeout=3600) == 0


def listed_tests(program):
    """A GoogleTest program's tests: {Suite.Test: the name to filter by}. A parameterized
    test is named by its value, as ctest's names had it (RunsOnFashionMnist/quickstart.toml
    for RunsOnFashionMnist/0)."""
    listing = subprocess.run([str(program), "--gtest_list_tests"], capture_output=True,
                             text=True, timeout=120, check=True).stdout
    names, suite = {}, ""
    for line in listing.splitlines():
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
        elif line.strip():
            test, _, comment = line.strip().partition("#")
            real = suite + test.strip()
            value = comment.partition("GetParam() = ")[2].strip()
            shown = re.sub(r"/[0-9]+$", "/" + value, real) if value else real
            names[shown] = real
    return names


def tests_fail(build_dir, targets, regex, log, timeout):
    """True when some test of `regex` in the target programs fails (or times out); None when
    it names no test. Each program runs the tests it holds, by name, in one process."""
    ran = False
    for target in targets:
        program = build_dir / "tests" / target
        try:
            names = [real for shown, real in listed_tests(program).items()
                     if re.search(regex, shown)]
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            with open(log, "a") as out:
                out.write(f"{program} --gtest_list_tests failed: {e}\n")
            return True  # a program that cannot even list its tests fails them all
        if not names:
            continue
        ran = True
        # In the build tree, as ctest runs them: what a test leaves stays out of the sources.
        code = run([str(program), "--gtest_filter=" + ":".join(names)], log, timeout=timeout,
                   cwd=build_dir)
        if code is None or code not in (0, ALL_SKIPPED):
            return True
    return None if not ran else False


def try_mutant(mutant, args):
    """Its verdict: killed, survived, stale, no tests, or did not build."""
    source = ROOT / mutant.file
    original = source.read_bytes()
    mutated, problem = mutated_text(mutant, original)
    if mutated is None:
        return problem
    log = args.build / "mutants" / f"{mutant.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(f"{mutant.name}: {mutant.why}\n")
    write_journal(args.build, source, original)
    try:
        source.write_bytes(mutated)
        if not build(args.build, mutant.targets, log, args.jobs):
            return "did not build"
        failed = tests_fail(args.build, mutant.targets, mutant.tests, log, args.test_timeout)
        if failed is None:
            return "no tests"
        return "killed" if failed else "survived"
    finally:
        # Written now, so newer than the mutant's objects: the next build recompiles it.
        source.write_bytes(original)
        journal_path(args.build).unlink(missing_ok=True)


def baseline_passes(mutants, args):
    """The unmutated tree builds and every test the mutants name passes: else a kill means nothing."""
    log = args.build / "mutants" / "baseline.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("the unmutated tree\n")
    if not build(args.build, sorted({t for m in mutants for t in m.targets}), log, args.jobs):
        print(f"the unmutated tree does not build: see {log}")
        return False
    for targets, regex in dict.fromkeys((tuple(m.targets), m.tests) for m in mutants):
        if tests_fail(args.build, targets, regex, log, args.test_timeout) is not False:
            print(f"tests of {regex} fail (or none run) without any mutant: see {log}")
            return False
    return True


def raise_on_terminate(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=Path, default=ROOT / "build",
                        help="a configured build tree with RUNNER_BUILD_TESTS=ON (default: build)")
    parser.add_argument("--mutants", type=Path, default=MUTANTS,
                        help="the list of mutants (default: mutants.toml beside this script)")
    parser.add_argument("--only", default="", help="regular expression: run the mutants it names")
    parser.add_argument("--list", action="store_true", help="list the mutants and check their text")
    parser.add_argument("--jobs", type=int, default=2, help="ninja's parallel jobs (default 2)")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip checking that the unmutated tree passes the mutants' tests")
    parser.add_argument("--test-timeout", type=int, default=1200,
                        help="seconds for one binary's run of a mutant's tests (default 1200)")
    return parser.parse_args()


def list_mutants(mutants):
    stale = 0
    for m in mutants:
        _, problem = mutated_text(m, (ROOT / m.file).read_bytes())
        stale += bool(problem)
        print(f"{m.name:48} {problem or m.why}")
    return 1 if stale else 0


def main():
    args = parse_arguments()
    args.build = args.build.resolve()
    mutants = [m for m in load_mutants(args.mutants) if re.search(args.only, m.name)]
    if args.list:
        return list_mutants(mutants)
    signal.signal(signal.SIGTERM, raise_on_terminate)
    restore_from_journal(args.build)
    if not args.no_baseline and not baseline_passes(mutants, args):
        return 2
    verdicts = {}
    for m in mutants:
        start = time.monotonic()
        verdicts[m.name] = try_mutant(m, args)
        print(f"{verdicts[m.name]:14} {m.name:48} {time.monotonic() - start:6.0f} s", flush=True)
    targets = sorted({t for m in mutants for t in m.targets})
    print("rebuilding the unmutated " + " ".join(targets), flush=True)
    build(args.build, targets, args.build / "mutants" / "restore.log", args.jobs)
    killed = sum(v == "killed" for v in verdicts.values())
    print(f"{killed} of {len(verdicts)} mutants killed")
    for name, verdict in verdicts.items():
        if verdict != "killed":
            print(f"  {verdict}: {name} (log: {args.build / 'mutants' / (name + '.log')})")
    return 0 if killed == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
