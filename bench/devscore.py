#!/usr/bin/env python3
"""Per-field right / confidently-wrong / null counts from `invx eval --json` reports.

usage: bench/devscore.py REPORT.json [BASELINE.json]

A field is confidently wrong when the result has a non-null value that differs
from the expectation; null when the result left it empty. With a baseline the
table shows before -> after. The dev set itself is never committed (see
shared/devset/README.md); this only reads eval's reports.
"""
import json
import sys


def counts(path):
    rep = json.load(open(path))
    p = rep["providers"][0]
    out = {}
    for field, fs in p["accuracy"].items():
        if not fs["scored"]:
            continue
        out[field] = {"right": fs["right"], "scored": fs["scored"], "wrong": 0, "null": 0}
    for r in p["results"]:
        for m in r.get("mismatches") or []:
            c = out.get(m["field"])
            if c is None:
                continue
            if m.get("got") is None:
                c["null"] += 1
            else:
                c["wrong"] += 1
    return out


def cell(c):
    n = c["scored"]
    return "%5.1f%% right %5.1f%% wrong (%d/%d, %d wrong, %d null)" % (
        100.0 * c["right"] / n, 100.0 * c["wrong"] / n, c["right"], n, c["wrong"], c["null"])


def main():
    after = counts(sys.argv[1])
    before = counts(sys.argv[2]) if len(sys.argv) > 2 else None
    for field in sorted(after):
        line = "%-18s %s" % (field, cell(after[field]))
        if before and field in before:
            line = "%-18s %s  <-  %s" % (field, cell(after[field]), cell(before[field]))
        print(line)


if __name__ == "__main__":
    main()
