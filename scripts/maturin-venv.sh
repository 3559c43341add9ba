#!/usr/bin/env bash
# Creates (or reuses) target/maturin-venv with maturin from PyPI, which builds lemplint's
# wheel (pyproject.toml) in tests/wheel.rs and for a release. Idempotent; runs from any cwd.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=target/maturin-venv
version=1.16.0

if [ -x "$venv/bin/maturin" ] && [ "$("$venv/bin/maturin" --version 2>/dev/null)" = "maturin $version" ]; then
    exit 0
fi

rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$version"
echo "$("$venv/bin/maturin" --version) in $venv"
