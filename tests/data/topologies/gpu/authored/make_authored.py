#!/usr/bin/env python3
"""Writes the small hwloc XMLs of this folder (authored for threadmap's tests, not recorded on any
machine): two packages of 4 CPUs, one NUMA node each, and PCI devices with the OS devices hwloc's
ROCm SMI, OpenCL and Level Zero backends name (rsmiN, openclPdN, zeN / zeN.M). Run it to
regenerate; the tests read the XML files."""
import sys

gp = [100]


def nxt():
    gp[0] += 1
    return gp[0]


def osdev(name, subtype, infos, children=""):
    body = "".join(f'<info name="{k}" value="{v}"/>' for k, v in infos)
    return (f'<object type="OSDev" gp_index="{nxt()}" name="{name}" subtype="{subtype}" '
            f'osdev_type="1">{body}{children}</object>')


def pcidev(bus, cls, vendor, device, osdevs):
    return (f'<object type="Bridge" gp_index="{nxt()}" bridge_type="0-1" depth="0" '
            f'bridge_pci="0000:[{bus:02x}-{bus:02x}]">'
            f'<object type="PCIDev" gp_index="{nxt()}" pci_busid="0000:{bus:02x}:00.0" '
            f'pci_type="{cls:04x} [{vendor:04x}:{device:04x}] [{vendor:04x}:0000] 00">'
            f'{"".join(osdevs)}</object></object>')


def sets(cpus, nodes):
    c, n = f"0x{cpus:08x}", f"0x{nodes:08x}"
    return f'cpuset="{c}" complete_cpuset="{c}" nodeset="{n}" complete_nodeset="{n}"'


def package(p, io):
    cpus = "".join(
        f'<object type="Core" os_index="{c}" {sets(1 << c, 1 << p)} gp_index="{nxt()}">'
        f'<object type="PU" os_index="{c}" {sets(1 << c, 1 << p)} gp_index="{nxt()}"/></object>'
        for c in range(4 * p, 4 * p + 4))
    mask = 0xf << (4 * p)
    return (f'<object type="Package" os_index="{p}" {sets(mask, 1 << p)} '
            f'gp_index="{nxt()}"><object type="NUMANode" os_index="{p}" {sets(mask, 1 << p)} '
            f'gp_index="{nxt()}" local_memory="1073741824"/>'
            f'{cpus}{"".join(io)}</object>')


def machine(io0, io1):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
            '<topology version="2.0"><object type="Machine" os_index="0" ' + sets(0xff, 3) +
            ' allowed_cpuset="0x000000ff" allowed_nodeset="0x00000003" gp_index="1">' + package(0, io0) + package(1, io1) +
            '</object></topology>\n')


def rsmi(n, uuid, model):
    return osdev(f"rsmi{n}", "RSMI", [("GPUVendor", "AMD"), ("GPUModel", model), ("AMDUUID", uuid)])


MI100 = 0x738c
files = {}
# Four MI100s whose ROCm SMI numbers do not follow the bus (as on LLNL's Corona): bus 03 is
# ROCm's 2, bus 23 its 3, bus 83 its 0, bus a3 its 1. One unique id is 15 hex digits (hwloc
# writes it without the leading zero).
files["amd-4x-mi100-rsmi-nonbus.xml"] = machine(
    [pcidev(0x03, 0x0380, 0x1002, MI100, [rsmi(2, "4c04714172e6268", "MI100")]),
     pcidev(0x23, 0x0380, 0x1002, MI100, [rsmi(3, "9e3f1d2c3b4a5968", "MI100")])],
    [pcidev(0x83, 0x0380, 0x1002, MI100, [rsmi(0, "a1b2c3d4e5f60718", "MI100")]),
     pcidev(0xa3, 0x0380, 0x1002, MI100, [rsmi(1, "0f1e2d3c4b5a6978", "MI100")])])
# MI300X parts are PCI class 0x12 (processing accelerator). The second one is split into two
# partitions (CPX), each a ROCm SMI device of its own. A Gaudi (Habana, 0x1da3) of class 0x12 is
# not a GPU.
files["amd-mi300x-class12-partitions.xml"] = machine(
    [pcidev(0x05, 0x1200, 0x1002, 0x74a1, [rsmi(0, "1111222233334444", "MI300X")]),
     pcidev(0x0b, 0x1200, 0x1da3, 0x1020, [])],
    [pcidev(0x85, 0x1200, 0x1002, 0x74a1, [rsmi(1, "5555666677778888", "MI300X"),
                                           rsmi(2, "99990000aaaabbbb", "MI300X")])])
# MI300A: the GPU of each APU sits in its package.
files["amd-2x-mi300a-apu.xml"] = machine(
    [pcidev(0x02, 0x1200, 0x1002, 0x74a0, [rsmi(0, "aaaa000011112222", "MI300A")])],
    [pcidev(0x82, 0x1200, 0x1002, 0x74a0, [rsmi(1, "bbbb000011112222", "MI300A")])])
# Two Intel Data Center GPU Max cards with two tiles each, as hwloc's Level Zero backend names
# them: ze0 with ze0.0 and ze0.1 under it.
def ze(n):
    subs = "".join(osdev(f"ze{n}.{t}", "LevelZero", [("LevelZeroSubdeviceID", t)])
                   for t in range(2))
    return osdev(f"ze{n}", "LevelZero", [("LevelZeroDeviceType", "GPU")], subs)


files["intel-2x-max1550-ze-tiles.xml"] = machine(
    [pcidev(0x29, 0x0380, 0x8086, 0x0bd5, [ze(0)])],
    [pcidev(0x9a, 0x0380, 0x8086, 0x0bd5, [ze(1)])])

for name, text in files.items():
    with open(name, "w") as f:
        f.write(text)
print("wrote", ", ".join(files), file=sys.stderr)
