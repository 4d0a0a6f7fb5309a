#!/usr/bin/env bash
# Re-resolve the two lock files (uv's universal resolver: one lock for CPython >= 3.11 on
# every platform, with the sha256 of every file). Run from the repository root after editing
# pyproject.toml or requirements/pins.in; pip installs the result (no uv needed to install).
#   requirements/dev.txt   every dependency, the dev and cluster extras included (the tests)
#   requirements/main.txt  what `cipherfab` needs to run, at dev.txt's versions (the main job)
set -euo pipefail
cd "$(dirname "$0")/.."
common=(--universal --python-version 3.11 --generate-hashes --no-emit-package cipherfab
        --custom-compile-command "requirements/lock.sh")
uv pip compile "${common[@]}" pyproject.toml requirements/build.in --all-extras \
  -c requirements/pins.in -o requirements/dev.txt "$@"
uv pip compile "${common[@]}" pyproject.toml requirements/build.in \
  -c requirements/dev.txt -o requirements/main.txt
