#!/usr/bin/env bash
# Regenerates one engine's flag table from the engine's own parser:
#
#   test/conformance/engines/generate.sh vllm 0.14.1
#   test/conformance/engines/generate.sh sglang 0.5.8
#
# The engine is installed into a throwaway virtualenv (9-11 GB, 5-12 minutes)
# that is removed afterwards; the table is written next to this script as
# <engine>-<version>.json. Packages named after the version are left out of
# the engine's requirements (stubs on PyPI that download from NVIDIA's own
# index, e.g. cuda-tile for SGLang 0.5.18 and later); the engine is then
# installed without resolving its dependencies again:
#
#   test/conformance/engines/generate.sh sglang 0.5.21 cuda-tile
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
pip=("$work/venv/bin/pip" install --quiet --disable-pip-version-check)
if [ $# -gt 0 ]; then
  "$work/venv/bin/pip" download --quiet --no-deps -d "$work/wheel" "$engine==$version"
  "$work/venv/bin/python" "$here/requirements.py" "$work"/wheel/*.whl "$@" > "$work/requirements.txt"
  "${pip[@]}" -r "$work/requirements.txt"
  "${pip[@]}" --no-deps "$engine==$version"
else
  "${pip[@]}" "$engine==$version"
fi
out="$here/$engine-$version.json"
# the engines log to stdout while they import: the table goes to a file
"$work/venv/bin/python" "$here/generate.py" "$engine" "$out" > "$work/generate.log" 2>&1 || { cat "$work/generate.log" >&2; exit 1; }
echo "generate: wrote $out" >&2
