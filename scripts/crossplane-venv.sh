#!/usr/bin/env bash
# Creates (or reuses) target/crossplane-venv with crossplane 0.5.8, the reference that
# tests/crossplane.rs compares our crossplane payload against. Idempotent; runs from any cwd.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=target/crossplane-venv
version=0.5.8

if [ -x "$venv/bin/python" ] &&
    "$venv/bin/python" -c "import crossplane, sys; sys.exit(crossplane.__version__ != '$version')" 2>/dev/null; then
    exit 0
fi

rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "crossplane==$version"
"$venv/bin/python" -c "import crossplane; print('crossplane', crossplane.__version__, 'in $venv')"
