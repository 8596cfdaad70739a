#!/usr/bin/env python3
"""Write SSDsim's page.parameters for the PIQ paper's drive (§V-A), starting from the file SSDsim
ships (huaicheng/ssdsim f4112896 `page.parameters`) and changing only what the paper states or
what its 128 GB / 8 x 8 / 2 KB / 64-page geometry forces:

  8 channels x 8 chips (chip number[0..7] = 8, chip number = 64); 1 die and 1 plane per chip
  (the paper leaves die/plane parallelism out, §III-A1); 16384 blocks per plane (128 GB); 64 pages
  of 2 KB (4 sub-pages of 512 B); over-provisioning 0.10 (as shipped); static allocation 1 =
  channel first, chip second (§V-A; pagemap.c get_ppn_for_pre_process case 1); advanced commands
  off (no multi-plane or interleaving with one die and one plane; the paper's conflict model is
  per chip). Everything else (tR 20 us, tPROG 200 us, tBERS 1.5 ms, tWC = tRC = 25 ns per byte,
  gc, wear levelling) stays as shipped.

Options: --buffer BYTES (DRAM write buffer; SSDsim ships 131074, 0 = none) and --slots N
(SSDsim's queue_length: requests the device holds at once; SSDsim's default is 5 and the shipped
file does not set it: pass 0 to leave it unset).
Usage: make_params.py SSDSIM_DIR OUT [--buffer B] [--slots N]
"""
import argparse
import re

p = argparse.ArgumentParser()
p.add_argument("ssdsim")
p.add_argument("out")
p.add_argument("--buffer", type=int, default=0)
p.add_argument("--slots", type=int, default=0)
a = p.parse_args()

over = {
    "dram capacity": a.buffer,
    "channel number": 8,
    "chip number": 64,
    "die number": 1,
    "plane number": 1,
    "block number": 16384,
    "page number": 64,
    "subpage page": 4,
    "page capacity": 2048,
    "subpage capacity": 512,
    "overprovide": "0.10",
    "allocation": 1,
    "static_allocation": 1,
    "advanced command": 0,
    "aged": 0,
}
for i in range(19):
    over[f"chip number[{i}]"] = 8 if i < 8 else 0

seen = set()
out = []
for line in open(f"{a.ssdsim}/page.parameters", encoding="latin-1"):
    m = re.match(r"^([^=#]+?)\s*=\s*([^;#]*)(.*)$", line.rstrip("\n"))
    if m and m.group(1) in over:
        key = m.group(1)
        seen.add(key)
        out.append(f"{key} = {over[key]}{m.group(3)}")
    else:
        out.append(line.rstrip("\n"))
missing = set(over) - seen
assert not missing, missing
if a.slots:
    out.append(f"queue_length = {a.slots};")
open(a.out, "w", encoding="latin-1").write("\n".join(out) + "\n")
