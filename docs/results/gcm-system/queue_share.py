"""GCM share of the core's own rate in the system model (Verilator), for the GHASH queue's
before/after: AES-128 iterative rom and interleaved rom 3, 1024 and 16,384-block messages
with 0 and 1 KiB of AAD, the axi-dma link.  The share does not depend on the clock.

    python docs/results/gcm-system/queue_share.py

Run on 2026-11-26 (AMD EPYC, 2 cores) at 2d401fe (no queue) and 696a1c9 (512-block queue):

    before: iterative rom   aad 0: 99.55% / 99.97%   aad 1 KiB: 94.99% / 99.67%
            interleaved rom 3 aad 0: 80.41% / 81.04%   aad 1 KiB: 77.35% / 80.84%
    after:  iterative rom   aad 0: 99.55% / 99.97%   aad 1 KiB: 99.02% / 99.94%
            interleaved rom 3 aad 0: 98.88% / 99.93%   aad 1 KiB: 98.34% / 99.89%
"""

import os

from cipherfab.host.driver import Accelerator
from cipherfab.registry import resolve

for name, kw in (("iterative rom", dict(arch="iterative", sbox="rom")),
                 ("interleaved rom 3", dict(arch="interleaved", sbox="rom", stages=3))):
    acc = Accelerator(resolve("aes", **kw), width=128, depth=512, fmax_mhz=100.0,
                      fmax_source="any (the share does not depend on it)")
    for aad in (0, 1024):
        for blocks in (1024, 16384):
            r = acc.run_gcm(bytes(16), False, bytes(12), os.urandom(aad), os.urandom(16 * blocks),
                            link="axi-dma")
            print(f"{name} aad {aad} blocks {blocks}: {100 * r.system_mbps / r.core_mbps:.2f}% "
                  f"({r.cycles} cycles)")
