#!/usr/bin/env python3
"""An external estimator for runexp: per-decision importance sampling.

PDIS (SPEC 1, with the discounting of SPEC 1c):
    (1/n) sum_i sum_t gamma^t W^i_t r^i_t,  W^i_t = prod_{s<=t} pi_e/pi_b,
from the first n episodes of the logged-data CSV file of each request.
Standard library only. The protocol (docs/external.md): one JSON request a
line on standard input,
    {"data": "/abs/path.csv", "n": [10, 20, ...], "gamma": 1}
one JSON response a line on standard output,
    {"estimates": [v_10, v_20, ...]}   or   {"error": "..."}
Replace pdis() by your own estimator; keep the loop.
"""
import csv
import json
import math
import sys


def read_episodes(path):
    """Returns the file's episodes in file order, each a list of
    (reward, pi_b, pi_e) per step."""
    episodes, last = [], None
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["episode"] != last or not episodes:
                episodes.append([])
                last = row["episode"]
            episodes[-1].append((float(row["reward"]), float(row["pi_b"]), float(row["pi_e"])))
    return episodes


def pdis(episodes, n, gamma):
    """PDIS from the first n episodes, summed as the built-in pdis does:
    per step over episodes, then over steps, each step's sum over n."""
    num = []
    for ep in episodes[:n]:
        w = 1.0
        for t, (r, pb, pe) in enumerate(ep):
            w *= pe / pb
            if gamma != 1:
                r *= math.pow(gamma, t)
            if t == len(num):
                num.append(0.0)
            if r != 0:
                num[t] += w * r
    return sum(v / n for v in num)


def main():
    for line in sys.stdin:
        try:
            req = json.loads(line)
            episodes = read_episodes(req["data"])
            if max(req["n"]) > len(episodes):
                raise ValueError("n = %d, but the file has %d episodes" % (max(req["n"]), len(episodes)))
            out = {"estimates": [pdis(episodes, n, req["gamma"]) for n in req["n"]]}
        except Exception as e:  # report it; the harness stops the run
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
