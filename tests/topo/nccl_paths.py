#!/usr/bin/env python3
# nccl_paths.py XML - check an NCCL topology XML written by pd2bw-topo -x
# and print NCCL's PCIe path type between every GPU and NIC, derived by
# the rules of NVIDIA/nccl src/graph/paths.cc (commit 5067397):
#   paths.cc:85  a path starts with the link type: a PCI link is PATH_PIX;
#   paths.cc:88  a hop from one PCI switch node to another is PATH_PXB;
#   paths.cc:90  a PCI link to or from a CPU node is PATH_PHB;
#   paths.cc:91  (max) the path takes the worst type of its hops.
# A <pci> holding a <gpu> or <nic> is that device, any other <pci> is a
# switch node (topo.cc:637-695, ncclTopoAddPci).  Facts also checked:
#   xml.cc:376-378, 359, 370, 402, 419: element names system, cpu, pci,
#     gpu, nic, net, nvlink;
#   topo.cc:536-545: class 0x060400 is a PCI bridge;
#   topo.cc:416-417: speed="0" (or absent) would mean 10 Gb/s, so a
#     written speed must be positive;
#   topo.cc:549-559: link_speed must be a name NCCL knows (else Gen3);
#   xml.cc:663: link_speed/link_width left out are filled from sysfs,
#     so an unknown value must be absent, never "Unknown" or "0".
import sys
import xml.etree.ElementTree as ET

KNOWN = {"system", "cpu", "pci", "gpu", "nic", "net", "nvlink", "pcilink", "c2c"}
ATTRS = {
    "system": {"version"},
    "cpu": {"numaid", "affinity", "arch", "vendor", "familyid", "modelid"},
    "pci": {"busid", "class", "vendor", "device", "subsystem_vendor",
            "subsystem_device", "link_speed", "link_width"},
    "gpu": {"dev", "sm", "rank", "gdr"},
    "nvlink": {"target", "count", "tclass"},
    "nic": set(),
    "net": {"name", "dev", "speed", "port", "latency", "guid", "maxconn",
            "gdr", "coll"},
}
SPEEDS = {"2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe",
          "32.0 GT/s PCIe", "64.0 GT/s PCIe"}
PIX, PXB, PHB, SYS = 4, 5, 8, 9
NAMES = {PIX: "PIX", PXB: "PXB", PHB: "PHB", SYS: "SYS"}


def kind(e):
    if e.tag != "pci":
        return e.tag
    if e.find("gpu") is not None:
        return "gpu"
    if e.find("nic") is not None:
        return "nic"
    return "switch"


def main(path):
    root = ET.parse(path).getroot()
    parent = {}
    devs = []
    errors = 0
    for e in root.iter():
        if e.tag not in KNOWN:
            print("unknown element", e.tag)
            errors += 1
        for a in e.attrib:
            if a not in ATTRS.get(e.tag, set()):
                print("unknown attribute", e.tag, a)
                errors += 1
        if e.tag == "pci":
            if "link_speed" in e.attrib and e.attrib["link_speed"] not in SPEEDS:
                print("bad link_speed", e.attrib["link_speed"])
                errors += 1
            if "link_width" in e.attrib and int(e.attrib["link_width"]) <= 0:
                print("bad link_width", e.attrib["link_width"])
                errors += 1
        if e.tag == "net" and "speed" in e.attrib and int(e.attrib["speed"]) <= 0:
            print("bad net speed", e.attrib["speed"])
            errors += 1
        if e.tag == "gpu" and e.attrib.get("sm") == "0":
            print("sm 0 written")
            errors += 1
        for c in e:
            parent[c] = e
            if c.tag == "pci" and kind(c) in ("gpu", "nic"):
                devs.append(c)

    def chain(e):
        out = [e]
        while e in parent:
            e = parent[e]
            out.append(e)
        return out

    def path_type(a, b):
        ca, cb = chain(a), chain(b)
        common = next(x for x in ca if x in cb)
        hops = ca[:ca.index(common) + 1] + list(reversed(cb[:cb.index(common)]))
        t = PIX
        for x, y in zip(hops, hops[1:]):
            if kind(x) == "cpu" or kind(y) == "cpu":
                t = max(t, PHB)
            elif kind(x) == "switch" and kind(y) == "switch":
                t = max(t, PXB)
            elif kind(x) == "system" or kind(y) == "system":
                t = max(t, SYS)
        return t

    gpus = [d for d in devs if kind(d) == "gpu"]
    nics = [d for d in devs if kind(d) == "nic"]
    for g in gpus:
        for n in nics:
            print("GPU%s %s %s" % (g.find("gpu").attrib["dev"],
                                   n.find("nic/net").attrib["name"],
                                   NAMES[path_type(g, n)]))
    print("%d GPUs, %d NICs, %d switches, %d errors" % (
        len(gpus), len(nics),
        sum(1 for e in root.iter("pci") if kind(e) == "switch"), errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
