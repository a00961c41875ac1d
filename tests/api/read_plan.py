#!/usr/bin/env python3
"""read_plan.py - read a pd2bw plan (pd2bw-plan/1) with PyYAML and print,
for every rank, its place, stage, layers and the first operations of its
schedule; the same lines as tests/api/plan_example.c.  The schedule follows
plan_stage_schedule() in include/pd2bw/plan.h."""
import sys

import yaml

NOPS = 8


def schedule(cfg, stage, s):
    """Operations of stage s in one iteration: (kind, microbatch)."""
    m, d, sched = cfg["accumulation"], cfg["depth"], cfg["schedule"]
    rc = stage["recompute"] == "full"
    warm = max(d - s - 1, 0)
    ops = []

    def bwd(j):
        if rc:
            ops.append(("R", j))
        ops.append(("B", j))

    if sched == "gpipe":
        ops += [("F", j) for j in range(m)]
        for j in range(m):
            bwd(j)
    elif sched == "2bw":
        for j in range(m):
            ops.append(("F", j + warm))
            bwd(j)
    else:  # flush, none
        warm = min(warm, m)
        ops += [("F", j) for j in range(warm)]
        for j in range(m - warm):
            ops.append(("F", warm + j))
            bwd(j)
        for j in range(m - warm, m):
            bwd(j)
    return ops


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: read_plan.py PLAN.yaml")
    with open(sys.argv[1]) as f:
        plan = yaml.safe_load(f)
    cfg, layers = plan["config"], plan["layers"]
    print("%s: schedule %s, width %d, depth %d, microbatch %d, "
          "accumulation %d" % (plan["inputs"]["model"], cfg["schedule"],
                               cfg["width"], cfg["depth"], cfg["microbatch"],
                               cfg["accumulation"]))
    for rk in plan["ranks"]:
        s = rk["stage"]
        st = plan["stages"][s]
        ops = schedule(cfg, st, s)
        line = ("rank %d: node %d gpu %d stage %d replica %d runtime-rank %d "
                "layers %s..%s ops" % (rk["rank"], rk["node"], rk["gpu"], s,
                                       rk["replica"],
                                       s * cfg["width"] + rk["replica"],
                                       layers[st["first"]],
                                       layers[st["last"]]))
        line += "".join(" %s%d" % op for op in ops[:NOPS])
        print(line + (" ..." if len(ops) > NOPS else ""))


if __name__ == "__main__":
    main()
