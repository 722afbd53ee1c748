"""Prints a wheel's own requirements, for this interpreter, without the ones named.

    python requirements.py engine.whl cuda-tile [more ...]

For an engine whose requirement list names a package PyPI cannot serve (a stub
that downloads from NVIDIA's own index): the rest is installed, then the
engine itself without dependencies (generate.sh does both).
"""

import sys
import zipfile

from pip._vendor.packaging.requirements import Requirement
from pip._vendor.packaging.utils import canonicalize_name


def main():
    wheel, without = sys.argv[1], {canonicalize_name(n) for n in sys.argv[2:]}
    with zipfile.ZipFile(wheel) as z:
        metadata = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        lines = z.read(metadata).decode().splitlines()
    for line in lines:
        if not line.startswith("Requires-Dist:"):
            continue
        req = Requirement(line.split(":", 1)[1].strip())
        if canonicalize_name(req.name) in without:
            continue
        # requirements of extras are not the engine's own; the others only where their marker holds
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        req.marker = None
        print(req)


if __name__ == "__main__":
    main()
