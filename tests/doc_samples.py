"""The samples and figures of the documentation, kept true to the tool.

**Samples.** A fenced block in docs/guide/*.md that shows what a command prints is marked,
on the line before it, with the command that produced it:

    <!-- sample: cipherfab pick aes --device ecp5-25k --min-gbps 2 -->

The block holds the command's stdout, after a first line ``$ COMMAND`` if it shows one (it
must be the marker's command).  Options follow ``|`` in the marker:

- none: run the command (in a new empty folder) and compare its stdout, normalised
  (``12.34 s`` -> ``<seconds> s``), with the block; tests/test_docs.py does, in the default run;
- ``slow``: the same, only with ``pytest -m slow`` (a build: a minute, cached after);
- ``show TEXT N``: the block shows N lines of the output from the first that starts with
  TEXT, ``...`` standing for the lines left out;
- ``results FILE``: not run (10^6 traces, a synthesis): every figure of the block (traces,
  registers, |t|, clocks, crossings, seconds) must be the one in that committed results.json.

**Facts.** Counts written in prose (points, architectures, test points) are computed from
the registry (:data:`FACTS`), and paragraphs the README and docs/install.md both carry are
the README's (:data:`COPIES`).

A maintainer regenerates instead of editing by hand::

    python tests/doc_samples.py            # check (exit 1 with what differs)
    python tests/doc_samples.py --write    # rewrite blocks, facts and copies from the tool
    python tests/doc_samples.py --write --slow   # the slow samples too (runs the builds)
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "guide"
MARKER = re.compile(r"^<!-- sample: (?P<command>.+?)(?: \| (?P<options>.+?))? -->\n```\n(?P<block>.*?)^```$",
                    re.M | re.S)
ELIDED = "..."
#: what varies from run to run, and what the block shows instead
NORMALISE = [(re.compile(r"\b\d+\.\d+ s\b"), "<seconds> s")]


@dataclass
class Sample:
    path: Path
    command: str
    options: str
    block: str          # the block's text, without its fences
    start: int          # where the block's text starts and ends in the file
    end: int

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(REPO)}: {self.command}"

    @property
    def slow(self) -> bool:
        return "slow" in self.options.split()

    @property
    def results(self) -> Path | None:
        m = re.search(r"\bresults (\S+)", self.options)
        return REPO / m.group(1) if m else None

    @property
    def show(self) -> tuple[str, int] | None:
        m = re.search(r"\bshow (.+) (\d+)\s*$", self.options)
        return (m.group(1), int(m.group(2))) if m else None

    def shown_command(self) -> tuple[str | None, str]:
        """(the ``$ COMMAND`` line's command or None, the block's output lines)."""
        first, _, rest = self.block.partition("\n")
        return (first[2:], rest) if first.startswith("$ ") else (None, self.block)


def samples(paths=None) -> list[Sample]:
    out = []
    for path in paths or sorted(GUIDE.glob("*.md")):
        text = path.read_text()
        for m in MARKER.finditer(text):
            out.append(Sample(path, m.group("command"), m.group("options") or "", m.group("block"),
                              m.start("block"), m.end("block")))
    return out


# ------------------------------------------------------------------------------ run

def normalise(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.split("\n"))   # a table's padding
    for pattern, placeholder in NORMALISE:
        text = pattern.sub(placeholder, text)
    return text


def run(command: str, timeout: float = 1800) -> str:
    """The command's stdout, run in a new empty folder; a failure raises with its stderr.
    Exit 1 is a failed check (a leakage run that finds the unmasked core leaking): its output
    is the sample, compared as any other; bad input (2) or a crash raises."""
    argv = shlex.split(command)
    if argv[0] != "cipherfab":
        raise ValueError(f"a sample's command runs cipherfab, not {argv[0]!r}")
    with tempfile.TemporaryDirectory(prefix="cipherfab-doc-sample-") as folder:
        p = subprocess.run([sys.executable, "-m", "cipherfab.cli", *argv[1:]], cwd=folder,
                           capture_output=True, text=True, timeout=timeout)
    if p.returncode not in (0, 1) or (p.returncode == 1 and not p.stdout):
        raise RuntimeError(f"`{command}` exited {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def expected_output(sample: Sample, stdout: str) -> str:
    """What the block's output part must read, given the command's stdout."""
    lines = normalise(stdout).rstrip("\n").split("\n")
    if sample.show:
        start_text, n = sample.show
        first = next((i for i, line in enumerate(lines) if line.startswith(start_text)), None)
        if first is None:
            raise RuntimeError(f"no line of `{sample.command}` starts with {start_text!r}")
        kept = lines[first:first + n]
        lines = ([ELIDED] if first else []) + kept + ([ELIDED] if first + n < len(lines) else [])
    return "\n".join(lines) + "\n"


def block_for(sample: Sample, output: str) -> str:
    shown, _ = sample.shown_command()
    return (f"$ {sample.command}\n" if shown is not None else "") + output


# ----------------------------------------------------------------- committed results

HEADER = re.compile(r"^(?P<top>\S+): (?P<traces>[\d,]+) traces \((?P<test>[^)]+)\), (?:HD model of "
                    r"(?P<registers>\d+) registers \((?P<register_bits>\d+) bits\)|toggle model of \d+ "
                    r"netlist cell outputs), noise sigma (?P<noise>[\d.]+); (?P<window>\d+) clocks a "
                    r"trace; (?P<jobs>\d+) process(?:es)?, (?P<seconds>[\d.]+) s", re.M)
ORDER = re.compile(r"^order (?P<order>\d): max \|t\| (?P<max_t>[\d.]+) at clock (?P<clock>\d+); "
                   r"(?:FAIL: \|t\| > 4\.5 from (?P<crossing>[\d,]+) traces|pass: .*)$", re.M)


def _figures(results: dict) -> tuple[dict, dict]:
    """(the header's figures, per order its figures) as a results.json gives them."""
    facts = results["facts"]
    header = {"top": results["top"], "traces": f"{results['traces']:,}", "test": results["test"],
              "noise": f"{results['noise']:g}", "window": str(results["window"]),
              "jobs": str(facts["jobs"]), "seconds": f"{results['seconds']:.1f}"}
    if results["model"] == "hd":
        header |= {"registers": str(facts["registers"]), "register_bits": str(facts["register_bits"])}
    orders = {}
    for order, o in results["orders"].items():
        t = [abs(x) for x in o["t"]]
        crossing = o["first_crossing"]
        orders[order] = {"max_t": f"{max(o['max_abs_t'][-1], 0.0):.2f}", "clock": str(t.index(max(t))),
                         "crossing": None if crossing is None else f"{crossing:,}"}
    return header, orders


def _substitute(text: str, pattern: re.Pattern, values) -> str:
    """``text`` with the named groups of each match of ``pattern`` set to ``values(match)``."""
    def one(m):
        want = values(m)
        line, base, out, at = m.group(0), m.start(), [], 0
        named = sorted((m.span(name), value) for name, value in want.items()
                       if value is not None and m.group(name) is not None)
        for (s, e), value in named:
            out += [line[at:s - base], value]
            at = e - base
        return "".join(out) + line[at:]
    return pattern.sub(one, text)


def results_problems(sample: Sample) -> list[str]:
    """How the block's figures differ from its results.json (nothing: they agree)."""
    problems = []
    out = re.search(r"--out (\S+)", sample.command)
    if not out or REPO / out.group(1) / "results.json" != sample.results:
        problems.append(f"the command's --out must be the folder of {sample.options}")
    results = json.loads(sample.results.read_text())
    header, orders = _figures(results)
    _, block = sample.shown_command()
    m = HEADER.search(block)
    if not m:
        return problems + ["no header line (TOP: N traces (...), ...)"]
    problems += [f"{k}: {m.group(k)} in the block, {v} in the results" for k, v in header.items()
                 if m.group(k) != v]
    seen = {o.group("order"): o for o in ORDER.finditer(block)}
    if sorted(seen) != sorted(orders):
        problems.append(f"orders {sorted(seen)} in the block, {sorted(orders)} in the results")
    for order, want in orders.items():
        if order in seen:
            problems += [f"order {order} {k}: {seen[order].group(k)} in the block, {v} in the results"
                         for k, v in want.items() if seen[order].group(k) != v]
    return problems


def from_results(sample: Sample) -> str:
    """The block with its figures set from its results.json."""
    header, orders = _figures(json.loads(sample.results.read_text()))
    text = _substitute(sample.block, HEADER, lambda m: header)
    return _substitute(text, ORDER, lambda m: orders.get(m.group("order"), {}))


# ------------------------------------------------------------------------------ facts

WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve"]


def facts() -> dict[str, str]:
    """The counts the prose states, from the registry."""
    from collections import Counter
    from cipherfab.registry import all_points, get_cipher
    points = all_points(None)
    per = Counter(p.cipher for p in points)
    finalists = {per[c] for c in ("serpent", "twofish", "rc6", "mars")}
    if len(finalists) != 1:
        raise RuntimeError(f"the finalists have different point counts: {dict(per)}")
    aes_archs = len(get_cipher("aes").architectures)
    return {"points": str(len(points)), "aes_points": str(per["aes"]), "tdes_points": str(per["tdes"]),
            "finalist_points": str(finalists.pop()), "aes_architectures": WORDS[aes_archs],
            "test_points": str(len(all_points(None, test_only=True)))}


#: (file, pattern): each named group of each match must read the fact of that name
FACTS = [
    ("README.md", r"AES in (?P<aes_architectures>\w+) architectures"),
    ("README.md", r"checks all (?P<points>\d+) points into a ledger"),
    ("README.md", r"combination: (?P<points>\d+) points, (?P<aes_points>\d+) of them AES\)"),
    ("README.md", r"The suite has (?P<test_points>\d+) test points"),
    ("docs/index.md", r"AES-128/192/256 in (?P<aes_architectures>\w+) architectures"),
    ("docs/index.md", r"MARS\): (?P<points>\d+) core points"),
    ("docs/install.md", r"The suite has (?P<test_points>\d+) test points"),
    ("docs/verification.md", r"registered architecture \((?P<points>\d+) points today\)"),
    ("docs/results.md", r"The ledger holds all (?P<points>\d+) registered points \((?P<aes_points>\d+) of them AES\)"),
    ("docs/guide/verify.md", r"(?P<points>\d+) points today, (?P<aes_points>\d+) of them AES "
                             r"\((?P<tdes_points>\d+) DES/3DES,\s+(?P<finalist_points>\d+) each for"),
    ("docs/guide/verify.md", r"each architecture's test\s+points \((?P<test_points>\d+)\)"),
]

#: (source, copy, first words, last words): the copy's paragraph is the source's
COPIES = [
    ("README.md", "docs/install.md", "Timings on an AMD EPYC with 2 cores:",
     "Installing the lock into a fresh venv with an empty pip cache took under a minute (at 1cbe9c1)."),
    ("README.md", "docs/install.md", "Latest measurement:", "The budget is 10 minutes."),
]


def fact_problems() -> list[str]:
    want, problems = facts(), []
    for name, pattern in FACTS:
        text = (REPO / name).read_text()
        found = list(re.finditer(pattern, text))
        if not found:
            problems.append(f"{name}: no sentence matches {pattern!r}")
        for m in found:
            problems += [f"{name}: {m.group(k)!r} where the registry gives {want[k]!r} ({k})"
                         for k in m.groupdict() if m.group(k) != want[k]]
    return problems


def _span(text: str, first: str, last: str) -> tuple[int, int] | None:
    start = text.find(first)
    end = text.find(last, start)
    return (start, end + len(last)) if start >= 0 and end >= 0 else None


def copy_problems() -> list[str]:
    problems = []
    for source, copy, first, last in COPIES:
        texts = [(REPO / f).read_text() for f in (source, copy)]
        spans = [_span(t, first, last) for t in texts]
        if None in spans:
            problems.append(f"{source} and {copy} must both hold the paragraph {first!r} ... {last!r}")
            continue
        a, b = (" ".join(t[s:e].split()) for t, (s, e) in zip(texts, spans))
        if a != b:
            problems.append(f"{copy}: the paragraph {first!r} ... differs from {source}'s:\n"
                            f"  {source}: {a}\n  {copy}: {b}")
    return problems


def write_facts_and_copies() -> list[str]:
    """Rewrite the facts and copies in place; the files changed."""
    want, changed = facts(), []
    for name, pattern in FACTS:
        path = REPO / name
        text = path.read_text()
        new = _substitute(text, re.compile(pattern), lambda m: {k: want[k] for k in m.groupdict()})
        if new != text:
            path.write_text(new)
            changed.append(name)
    for source, copy, first, last in COPIES:
        src, path = (REPO / source).read_text(), REPO / copy
        text = path.read_text()
        (s0, e0), (s1, e1) = _span(src, first, last), _span(text, first, last)
        new = text[:s1] + src[s0:e0] + text[e1:]
        if new != text:
            path.write_text(new)
            changed.append(copy)
    return changed


# ------------------------------------------------------------------------------ main

def check(sample: Sample) -> list[str]:
    """How the sample's block differs from what the tool prints (nothing: it agrees)."""
    shown, output = sample.shown_command()
    problems = [] if shown in (None, sample.command) else \
        [f"the block's `$ {shown}` is not the marker's command"]
    if sample.results:
        return problems + results_problems(sample)
    want = expected_output(sample, run(sample.command))
    if output != want:
        import difflib
        problems.append("the block differs from the tool's output:\n" + "".join(
            difflib.unified_diff(output.splitlines(True), want.splitlines(True), "docs", "tool")))
    return problems


def rewrite(sample: Sample) -> str:
    """The block as the tool (or the committed results) gives it."""
    if sample.results:
        return from_results(sample)
    return block_for(sample, expected_output(sample, run(sample.command)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/doc_samples.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the blocks, facts and copies")
    parser.add_argument("--slow", action="store_true", help="the slow samples too (builds)")
    args = parser.parse_args(argv)
    bad = 0
    if args.write:
        for name in write_facts_and_copies():
            print(f"rewrote the facts or copies in {name}")
    else:
        for problem in fact_problems() + copy_problems():
            print(problem)
            bad += 1
    for path in sorted(GUIDE.glob("*.md")):
        for sample in reversed(samples([path])):    # from the end: earlier offsets stay valid
            if sample.slow and not args.slow:
                print(f"skipped (slow; --slow runs it): {sample.name}")
                continue
            if args.write:
                new = rewrite(sample)
                if new != sample.block:
                    text = path.read_text()
                    path.write_text(text[:sample.start] + new + text[sample.end:])
                    print(f"rewrote {sample.name}")
            else:
                problems = check(sample)
                print(f"{'ok  ' if not problems else 'DIFF'} {sample.name}")
                for problem in problems:
                    print("  " + problem.replace("\n", "\n  "))
                bad += bool(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
