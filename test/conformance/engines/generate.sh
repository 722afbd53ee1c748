#!/usr/bin/env bash
# Regenerates one engine's flag table from the engine's own parser:
#
#   test/conformance/engines/generate.sh vllm 0.14.1
#   test/conformance/engines/generate.sh sglang 0.5.8
#
# The engine is installed into a throwaway virtualenv (9-11 GB, 5-12 minutes)
# that is removed afterwards; the table is written next to this script as
# <engine>-<version>.json. Extra pip arguments after the version are passed
# on (e.g. a requirements file that leaves out a package PyPI cannot serve).
set -euo pipefail
engine=$1
version=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "generate: installing $engine==$version into $work (this takes several minutes)" >&2
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check "$engine==$version" "$@"
out="$here/$engine-$version.json"
# the engines log to stdout while they import: the table goes to a file
"$work/venv/bin/python" "$here/generate.py" "$engine" "$out" > "$work/generate.log" 2>&1 || { cat "$work/generate.log" >&2; exit 1; }
echo "generate: wrote $out" >&2
