"""Copies the summary of one cargo-mutants run (its mutants.out folder) into
a folder here: the caught, missed, unviable and timeout lists and
outcomes.json, gzipped without its timestamps in the gzip header.

    python3 bench/tuning/mutants/collect.py MUTANTS_OUT DEST
"""
import gzip
import pathlib
import shutil
import sys


def main(src, dest):
    src, dest = pathlib.Path(src), pathlib.Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for name in ["caught.txt", "missed.txt", "unviable.txt", "timeout.txt"]:
        shutil.copyfile(src / name, dest / name)
    data = (src / "outcomes.json").read_bytes()
    with open(dest / "outcomes.json.gz", "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", filename="", mtime=0) as out:
            out.write(data)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
