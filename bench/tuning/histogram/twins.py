#!/usr/bin/env python3
"""Lab tool: writes the skewed twin of a histogram kernel file, NAME_skewed.cu
beside NAME.cu: the same header (sizes, sweep, launch) under
`problem = "histogram_u8_skewed"`, its comment lines replaced by one that
names the original, and a body that includes the original, so the two
examples run one kernel on the two inputs. Run it again after changing a
header; `--check` exits 1 when a twin is out of step.

Usage: python3 bench/tuning/histogram/twins.py [--check] kernels/histogram/NAME.cu ...
"""
import pathlib
import sys


def twin_text(path):
    src = path.read_text()
    head, sep, _ = src.partition("+++*/")
    assert sep, f"{path}: no header"
    lines = head.splitlines()
    out, commented = [], False
    for line in lines:
        if line.startswith("problem = "):
            assert line == 'problem = "histogram_u8"', f"{path}: {line}"
            out.append('problem = "histogram_u8_skewed"')
        elif line.startswith("#"):
            if not commented:
                out.append(f"# {path.name}'s kernel and launch, on the skewed input.")
                commented = True
        else:
            out.append(line)
    if not commented:
        out.insert(3, f"# {path.name}'s kernel and launch, on the skewed input.")
    return "\n".join(out) + "\n+++*/\n\n" + \
        f"// The kernel of {path.name}, unchanged; only the input differs.\n#include \"{path.name}\"\n"


def main(argv):
    check = "--check" in argv
    stale = 0
    for name in [a for a in argv[1:] if a != "--check"]:
        path = pathlib.Path(name)
        twin = path.with_name(path.stem + "_skewed.cu")
        text = twin_text(path)
        if check:
            if not twin.exists() or twin.read_text() != text:
                print(f"{twin} is out of step with {path}")
                stale = 1
        else:
            twin.write_text(text)
    return stale


if __name__ == "__main__":
    sys.exit(main(sys.argv))
