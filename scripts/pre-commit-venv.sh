#!/usr/bin/env bash
# Creates (or reuses) target/pre-commit-venv: pre-commit from PyPI, which tests/wheel.rs runs
# against the python hooks of pre-commit-mirror/, and a wheelhouse with the setuptools wheel
# those hooks' `pip install .` builds with, so that the test installs with --no-index (only
# from the wheelhouse and the lemplint wheel it builds). Idempotent; runs from any cwd.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=target/pre-commit-venv
version=4.7.0
setuptools=80.9.0

if [ -x "$venv/bin/pre-commit" ] && [ "$("$venv/bin/pre-commit" --version 2>/dev/null)" = "pre-commit $version" ] &&
    [ -f "$venv/wheelhouse/setuptools-$setuptools-py3-none-any.whl" ]; then
    exit 0
fi

rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==$version"
"$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$venv/wheelhouse" "setuptools==$setuptools"
echo "$("$venv/bin/pre-commit" --version) and setuptools $setuptools's wheel in $venv"
