#!/usr/bin/env python3
# inject.py - hostile names through every emitter and picture.
#
# A name with a newline, $(...), backticks, both quotes, <, & and NUL
# reaches the outputs from six sources: a model's name:, a Hugging Face
# config's _name_or_path, the HF model directory's name, a profile's
# model: and device, a cluster's gpu:.  For each, pd2bw-plan either refuses
# the input with a located one-line message, or writes outputs that parse
# (bash -n, json, tomllib, yaml, an XML parser) and run nothing when the
# scripts are sourced (a name running "touch" would leave a file).
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import xml.etree.ElementTree as ET

import yaml

# libyaml's loader where PyYAML has it (as check.py).
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

TOP = os.environ["TOP"]
EVIL = "evil\n$(touch ran1); rm `touch ran2` 'q\" <a>&b"
# YAML double-quoted and JSON strings of it, with and without a NUL.
VARIANTS = [("", json.dumps(EVIL), json.dumps(EVIL)),
            (" +NUL", json.dumps(EVIL)[:-1] + '\\0tail"',
             json.dumps(EVIL)[:-1] + '\\u0000tail"')]


def sources(d, EVIL_YAML, EVIL_JSON, nul):
    """(label, pd2bw-plan arguments) for each source."""
    out = []
    llama = open(os.path.join(TOP, "models", "llama3-8b.yaml")).read()
    p = os.path.join(d, "model.yaml")
    open(p, "w").write(re.sub(r"(?m)^name: .*$", "name: " + EVIL_YAML,
                              llama))
    out.append(("model name", [p, "-c", "dgx-h100:1", "-B", "64", "--sequence-parallel", "off"]))
    hf = json.load(open(os.path.join(TOP, "tests", "data", "formats",
                                     "hf-llama", "config.json")))
    text = json.dumps(hf).replace('"_name_or_path": ' +
                                  json.dumps(hf.get("_name_or_path", "")),
                                  '"_name_or_path": ' + EVIL_JSON)
    if "_name_or_path" not in hf:
        text = text[:-1] + ', "_name_or_path": ' + EVIL_JSON + "}"
    p = os.path.join(d, "config.json")
    open(p, "w").write(text)
    out.append(("HF _name_or_path", [p, "-c", "dgx-h100:1", "-B", "64",
                                      "--seq-len", "2048", "--sequence-parallel", "off"]))
    hd = os.path.join(d, EVIL)
    os.makedirs(hd, exist_ok=True)
    hf.pop("_name_or_path", None)
    json.dump(hf, open(os.path.join(hd, "config.json"), "w"))
    out.append(("HF directory", [os.path.join(hd, "config.json"), "-c",
                                 "dgx-h100:1", "-B", "64", "--seq-len",
                                 "2048", "--sequence-parallel", "off"]))
    prof = open(os.path.join(TOP, "tests", "data", "plan",
                             "tiny-profile.yaml")).read()
    p = os.path.join(d, "profile.yaml")
    open(p, "w").write(prof.replace("model: tiny", "model: " + EVIL_YAML))
    cl = os.path.join(TOP, "tests", "data", "plan", "tiny-cluster.yaml")
    out.append(("profile model", [p, "-c", cl, "-B", "8", "--reserve",
                                  "0.5"]))
    c = open(cl).read()
    p2 = os.path.join(d, "cluster.yaml")
    open(p2, "w").write(c.replace("gpu: TEST-GPU", "gpu: " + EVIL_YAML))
    out.append(("cluster gpu", [os.path.join(TOP, "tests", "data", "plan",
                                             "tiny-profile.yaml"),
                                "-c", p2, "-B", "8", "--reserve", "0.5"]))
    return out


def parse(fmt, path):
    if fmt in ("megatron", "launch"):
        subprocess.run(["bash", "-n", path], check=True)
    elif fmt in ("deepspeed", "trace"):
        json.load(open(path))
    elif fmt == "torchtitan":
        tomllib.load(open(path, "rb"))
    elif fmt == "megatron-bridge":
        yaml.load(open(path), Loader=LOADER)
    elif fmt in ("timeline", "memory"):
        ET.parse(path)


def run_source(d, label, argv):
    bad = []
    wd = tempfile.mkdtemp(dir=d)
    made = 0
    for fmt in ("megatron", "deepspeed", "launch", "torchtitan",
                "megatron-bridge"):
        out = os.path.join(wd, "out." + fmt)
        r = subprocess.run(["pd2bw-plan"] + argv + [
            "-s", "flush", "-q", "--emit", fmt, "--emit-output", out,
            "--timeline", os.path.join(wd, "t.svg"), "--memory",
            os.path.join(wd, "m.svg"), "--trace",
            os.path.join(wd, "trace.json")], capture_output=True, text=True,
            cwd=wd)
        if r.returncode:
            msg = r.stderr
            print("  %s, %s: refused: %s" % (label, fmt, msg.strip().replace(
                d, "DIR").replace(os.environ.get("TOP", d), "TOP").replace(
                "\n", "|")))
            # A refusal: one line (besides warnings, such as the one for
            # a profile measured on another GPU), and for the name itself
            # a location.
            lines = [ln for ln in msg.splitlines() if ": warning: " not in ln]
            if len(lines) != 1:
                bad.append("%s %s: message of %d lines: %r" % (
                    label, fmt, msg.count("\n"), msg))
            continue
        made += 1
        try:
            parse(fmt, out)
            for pic, f in (("timeline", "t.svg"), ("memory", "m.svg"),
                           ("trace", "trace.json")):
                parse(pic, os.path.join(wd, f))
        except Exception as e:
            bad.append("%s %s: does not parse: %s" % (label, fmt, e))
            continue
        if fmt in ("megatron", "launch"):
            # Sourcing runs every line that is not a comment; the launch
            # script's own commands are stubbed out.
            stub = "srun() { :; }; scontrol() { :; }; export() { :; };"
            subprocess.run(["bash", "-c", stub + ' set --; . "$0" || :',
                            out], cwd=wd, capture_output=True)
    for f in ("ran1", "ran2"):
        if os.path.exists(os.path.join(wd, f)):
            bad.append("%s: a name ran a command (%s)" % (label, f))
    return bad, made


def main():
    failures = []
    total = 0
    with tempfile.TemporaryDirectory() as d:
        for v, ey, ej in VARIANTS:
            for label, argv in sources(d, ey, ej, v):
                label += v
                bad, made = run_source(d, label, argv)
                total += made
                failures += bad
                print("%s: %d written, %s" % (label, made,
                                              "ok" if not bad else "FAIL"))
    for f in failures:
        print("FAIL", f)
    print("%d outputs written and checked, %d failures" % (total,
                                                          len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
