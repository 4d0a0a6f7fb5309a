"""``cipherfab study`` on the test fakes in a fresh process, for the tests that signal a study.

Usage: ``python study_on_fakes.py NAME [study options]``.  Adds the study ``waits``: per seed,
one point that builds at once and one whose build waits on a child process for a minute
(``child_sleep``, see fakes.py), as a real build waits on yosys or nextpnr.
"""

import functools
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cipherfab.study import cli, runner, studies  # noqa: E402
from fakes import FAKE  # noqa: E402

studies.STUDIES["waits"] = studies.Study(
    name="waits", title="one quick point, one that waits on a child process", description="",
    points=[{"key_bits": 128, "sbox": "rom"}, {"key_bits": 128, "sbox": "lut", "child_sleep": 60}],
    seeds=(1, 2))
runner.run_study = functools.partial(runner.run_study, **FAKE)

if __name__ == "__main__":
    # as from a terminal: a parent that ignores SIGINT (a shell's background job) passes that on
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(cli.main(sys.argv[1:]))
