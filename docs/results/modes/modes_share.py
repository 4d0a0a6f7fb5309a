"""The system's feedback and MAC modes as a share of the core's own ECB rate, in the system
model (Verilator, cycles only: the share does not depend on the clock): CTR (for scale),
CBC encrypt, OFB, CFB encrypt and decrypt, CMAC (the first message after a key load,
and the next under the same key: L kept) and XTS encrypt (the message as one data unit, and
cut into 4 KiB and 512-byte units: the tweaks' ECB run, two key loads and a start per unit
counted) and CCM encrypt (no AAD, and 1 KiB of it: host.ccm's two messages, CBC-MAC and
CTR, counted together), and CFB8 and CFB1 both ways (as many segments as the message has
blocks, a block each on the stream), on the `system` study's five AES-128 cores,
1024-block messages, the axi-dma link, 512-block FIFOs.

    python docs/results/modes/modes_share.py [--blocks N] [--json FILE]

The share is the message's bits over the clocks from its first input transfer to its last
output (CMAC: to the tag), against the core's declared ECB rate (block bits / cycles per
block).  The table it prints is in report.md beside it.
"""

import argparse
import json
import os
import platform

from cipherfab.generate import declaration
from cipherfab.hw.modes import Mode
from cipherfab.host import ccm
from cipherfab.host.driver import Accelerator
from cipherfab.registry import resolve

CORES = {
    "iterative rom": dict(arch="iterative", sbox="rom"),
    "interleaved rom-3": dict(arch="interleaved", sbox="rom", stages=3),
    "pipeline rom-1": dict(arch="pipeline", sbox="rom", stages=1),
    "pipeline lut-2": dict(arch="pipeline", sbox="lut", stages=2),
    "pipeline rom-4": dict(arch="pipeline", sbox="rom", stages=4),
}
MODES = (("ctr", Mode.CTR), ("cbc", Mode.CBC_ENCRYPT), ("ofb", Mode.OFB),
         ("cfb", Mode.CFB_ENCRYPT), ("cfb-dec", Mode.CFB_DECRYPT))
SEGMENT_MODES = (("cfb8", Mode.CFB8_ENCRYPT), ("cfb8-dec", Mode.CFB8_DECRYPT),
                 ("cfb1", Mode.CFB1_ENCRYPT), ("cfb1-dec", Mode.CFB1_DECRYPT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=1024)
    ap.add_argument("--json", help="write the rows here too")
    args = ap.parse_args()
    key, iv = bytes(range(16)), bytes(16)
    data = os.urandom(16 * args.blocks)
    rows = []
    print(f"{args.blocks} blocks, axi-dma, share of the core's ECB rate "
          f"({platform.processor() or platform.machine()})")
    for name, kw in CORES.items():
        params = resolve("aes", **kw)
        info = declaration(params)
        acc = Accelerator(params, width=128, depth=512)
        ecb_bits_per_clock = info.block_bits / info.cycles_per_block
        row = {"core": name, "top": params.top, "cycles_per_block": info.cycles_per_block,
               "cycles_per_block_feedback": info.cycles_per_block_feedback}
        for mode_name, mode in MODES:
            r = acc.run(key, mode, data, iv, link="axi-dma")
            row[mode_name] = 8 * len(data) / r.cycles / ecb_bits_per_clock
        first = acc.run_cmac(key, data, link="axi-dma")
        nxt = acc.run_cmac(key, data, link="axi-dma", messages=2)
        row["cmac"] = 8 * len(data) / first.cycles / ecb_bits_per_clock
        row["cmac-next"] = 8 * len(data) / nxt.cycles / ecb_bits_per_clock
        short = acc.run_cmac(key, bytes(16), link="axi-dma")
        short_next = acc.run_cmac(key, bytes(16), link="axi-dma", messages=2)
        row["cmac_1block_clocks"] = [short.cycles, short_next.cycles]
        xts_key = key + bytes(range(16, 32))
        for label, unit in (("xts", None), ("xts-4096", 4096), ("xts-512", 512)):
            r = acc.run_xts(xts_key, False, bytes(16), data, unit, link="axi-dma")
            row[label] = 8 * len(data) / r.cycles / ecb_bits_per_clock
        for label, aad in (("ccm", b""), ("ccm-aad1k", bytes(1024))):
            r = ccm.run(acc, key, False, bytes(12), aad, data, None, 16, link="axi-dma")
            row[label] = 8 * len(data) / r.cycles / ecb_bits_per_clock
        for label, mode in SEGMENT_MODES:       # a segment a block: --blocks segments
            text = data[:args.blocks * mode.segment_bits // 8]
            r = acc.run(key, mode, text, iv, link="axi-dma")
            row[label] = 8 * len(text) / r.cycles / ecb_bits_per_clock
            row[label + "_clocks_per_segment"] = r.cycles / args.blocks
        rows.append(row)
        print(f"{name:18s} " + "  ".join(f"{m} {100 * row[m]:.1f}%" for m, _ in MODES)
              + f"  cmac {100 * row['cmac']:.1f}% / next {100 * row['cmac-next']:.1f}%"
              + f"  cmac 1 block {short.cycles} / {short_next.cycles} clocks"
              + "".join(f"  {m} {100 * row[m]:.1f}%" for m in ("xts", "xts-4096", "xts-512",
                                                                 "ccm", "ccm-aad1k"))
              + "".join(f"  {m} {100 * row[m]:.2f}% ({row[m + '_clocks_per_segment']:.2f} clocks a "
                        f"segment)" for m, _ in SEGMENT_MODES))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"blocks": args.blocks, "link": "axi-dma", "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
