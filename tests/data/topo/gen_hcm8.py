# gen_hcm8.py - writes hcm8.xml (python3 gen_hcm8.py > hcm8.xml): an 8-GPU
# hybrid-cube-mesh node whose GPUs hang at different bridge depths below
# two packages (pd2bw-topo once crashed on this shape, issue 16 item 1).
# two packages, GPUs under PCIe switches of different depths below each
gp = [0]
def nid():
    gp[0] += 1
    return gp[0]
out = []
def w(depth, s): out.append('  ' * depth + s)
gpus = []
def cpuset(lo, n):
    return "0x%08x" % (((1 << n) - 1) << lo)
def pkg(ind, os, cpu_lo, nodeset, body):
    cs = cpuset(cpu_lo, 4)
    w(ind, '<object type="Package" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (os, cs, cs, nodeset, nodeset, nid()))
    w(ind+1, '<object type="NUMANode" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d" local_memory="68719476736"/>' % (os, cs, cs, nodeset, nodeset, nid()))
    w(ind+1, '<object type="L3Cache" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d" cache_size="33554432" depth="3" cache_linesize="64" cache_associativity="16" cache_type="0">' % (cs, cs, nodeset, nodeset, nid()))
    for c in range(cpu_lo, cpu_lo + 4):
        one = cpuset(c, 1)
        w(ind+2, '<object type="Core" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d">' % (c, one, one, nodeset, nodeset, nid()))
        w(ind+3, '<object type="PU" os_index="%d" cpuset="%s" complete_cpuset="%s" nodeset="%s" complete_nodeset="%s" gp_index="%d"/>' % (c, one, one, nodeset, nodeset, nid()))
        w(ind+2, '</object>')
    w(ind+1, '</object>')
    body(ind+1)
    w(ind, '</object>')
SPEED = 'pci_link_speed="15.753846"'
def bridge(ind, bdepth, rng, busid, kids):
    w(ind, '<object type="Bridge" gp_index="%d" bridge_type="1-1" depth="%d" bridge_pci="0000:[%s]" pci_busid="0000:%s" pci_type="0604 [10b5:9797] [10b5:9797] b0" %s>' % (nid(), bdepth, rng, busid, SPEED))
    kids(ind+1)
    w(ind, '</object>')
def hostbridge(ind, rng, kids):
    w(ind, '<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" bridge_pci="0000:[%s]">' % (nid(), rng))
    kids(ind+1)
    w(ind, '</object>')
def gpu(ind, busid, k):
    g = nid()
    gpus.append(g)
    w(ind, '<object type="PCIDev" gp_index="%d" pci_busid="0000:%s" pci_type="0302 [10de:1db1] [10de:1212] a1" %s>' % (g, busid, SPEED))
    w(ind+1, '<info name="PCIVendor" value="NVIDIA Corporation"/>')
    w(ind+1, '<info name="PCIDevice" value="GV100GL [Tesla V100 SXM2 16GB]"/>')
    w(ind+1, '<object type="OSDev" gp_index="%d" name="card%d" subtype="Display" osdev_type="1"/>' % (nid(), k + 1))
    w(ind, '</object>')
def nic(ind, busid, k):
    w(ind, '<object type="PCIDev" gp_index="%d" pci_busid="0000:%s" pci_type="0207 [15b3:101b] [15b3:0007] 00" %s>' % (nid(), busid, SPEED))
    w(ind+1, '<object type="OSDev" gp_index="%d" name="ib%d" osdev_type="2"/>' % (nid(), k))
    w(ind+1, '<object type="OSDev" gp_index="%d" name="mlx5_%d" osdev_type="3"/>' % (nid(), k))
    w(ind, '</object>')
def leaf(bdepth, rng, busid, f):
    return lambda i: bridge(i, bdepth, rng, busid, f)
# package 0: one switch, four GPUs one bridge below it, NIC on the switch
def p0(i):
    def sw(j):
        for k, (port, bus) in enumerate([("11:00.0", "12"), ("11:04.0", "13"), ("11:08.0", "14"), ("11:0c.0", "15")]):
            bridge(j, 2, bus + "-" + bus, port, lambda x, bus=bus, k=k: gpu(x, bus + ":00.0", k))
        bridge(j, 2, "16-16", "11:10.0", lambda x: nic(x, "16:00.0", 0))
    hostbridge(i, "10-3f", lambda j: bridge(j, 1, "11-16", "10:00.0", sw))
# package 1: a NIC right on the host bridge; two levels of switches, two GPUs each
def p1(i):
    def sub(j, up, down, g0, k0):
        def inner(x):
            for n, (port, bus) in enumerate(down):
                bridge(x, 4, bus + "-" + bus, port, lambda y, bus=bus, n=n: gpu(y, bus + ":00.0", k0 + n))
        bridge(j, 3, up[0], up[1], inner)
    def top(j):
        bridge(j, 2, "53-58", "52:00.0", lambda x: sub(x, ("54-58", "53:00.0"), [("54:00.0", "55"), ("54:04.0", "56")], 0, 4))
        bridge(j, 2, "59-5f", "52:04.0", lambda x: sub(x, ("5a-5f", "59:00.0"), [("5a:00.0", "5b"), ("5a:04.0", "5c")], 0, 6))
    def hb(j):
        nic(j, "50:00.0", 1)
        bridge(j, 1, "52-5f", "50:01.0", top)
    hostbridge(i, "50-8f", hb)
w(0, '<?xml version="1.0" encoding="UTF-8"?>')
w(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
w(0, '<topology version="2.0">')
w(1, '<object type="Machine" os_index="0" cpuset="0x000000ff" complete_cpuset="0x000000ff" allowed_cpuset="0x000000ff" nodeset="0x00000003" complete_nodeset="0x00000003" allowed_nodeset="0x00000003" gp_index="%d">' % nid())
w(2, '<info name="HostName" value="hcm8"/>')
w(2, '<info name="Backend" value="Linux"/>')
pkg(2, 0, 0, "0x00000001", p0)
pkg(2, 1, 4, "0x00000002", p1)
w(1, '</object>')
# DGX-1 hybrid cube mesh: NV2 inside each quad ring pair, NV1 diagonals, NV2 across
bw = [[0]*8 for _ in range(8)]
def link(a, b, v):
    bw[a][b] = bw[b][a] = v
for q in (0, 4):
    link(q, q+1, 50000); link(q+2, q+3, 50000)
    link(q, q+2, 25000); link(q, q+3, 25000); link(q+1, q+2, 25000); link(q+1, q+3, 25000)
for a in range(4):
    link(a, a+4, 50000)
vals = [str(v) for row in bw for v in row]
idx = ' '.join(str(g) for g in gpus) + ' '
w(1, '<distances2 type="PCIDev" nbobjs="8" kind="9" name="NVLinkBandwidth" indexing="gp">')
w(2, '<indexes length="%d">%s</indexes>' % (len(idx), idx))
for i in range(0, 64, 10):
    s = ' '.join(vals[i:i+10]) + ' '
    w(2, '<u64values length="%d">%s</u64values>' % (len(s), s))
w(1, '</distances2>')
for s in ("discovery.pu", "discovery.numa", "discovery.numa_memory", "custom.exported_support"):
    w(1, '<support name="%s"/>' % s)
w(0, '</topology>')
print('\n'.join(out))
