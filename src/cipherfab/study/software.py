"""Software baselines measured on this machine: paper 000's Table 10 beside our cores.

A cipher names its software implementations in its registry entry
(``Cipher.software``: (provider, that provider's name for the cipher) pairs);
this module measures each once, on one core:

* ``openssl``: OpenSSL through ``cryptography`` (the project's reference), ECB
  over a 16 MiB buffer for ``seconds``; key setup = creating a cipher context
  with a fresh key, averaged over many keys (this includes the Python call
  overhead, so it is an upper bound on OpenSSL's own key expansion).
* ``cryptopp``: Crypto++'s own benchmark, ``cryptest b2 SECONDS 2.0`` (Debian
  package ``libcrypto++-utils``), its "NAME/CTR (K-bit key)" row (ECB where the
  benchmark has one): MiB/s and microseconds to set up key and IV, as it prints
  them.  It runs every algorithm Crypto++ benchmarks (about 50 s at 0.25 s).

A missing provider is reported as one row with the reason and the install
hint, never as a number.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time

CRYPTEST = "cryptest"
MIB_TO_MBIT = 8 * 1.048576

_ROW = re.compile(r"<TR><TD>([^<]+)<TD>([^<]+)<TD>([\d.]+)<TD>([\d.]+)<TD>([\d.]+)<TD>(\d+)")


def parse_cryptest_b2(html: str) -> dict[str, dict]:
    """Rows of ``cryptest b2`` output: {algorithm: {"impl", "mib_s", "key_setup_us"}}."""
    rows = {}
    for name, impl, mib, _cpb, us, _cycles in _ROW.findall(html):
        rows[name.strip()] = {"impl": impl.strip(), "mib_s": float(mib), "key_setup_us": float(us)}
    return rows


def _cryptopp_version() -> str:
    try:
        return subprocess.run([CRYPTEST, "V"], capture_output=True, text=True,
                              timeout=30).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def _cryptopp(wanted: list[tuple[str, str, int]], seconds: float) -> list[dict]:
    """``wanted``: (our cipher, Crypto++ name, key bits)."""
    if not wanted:
        return []
    cmd = [CRYPTEST, "b2", str(seconds), "2.0"]
    base = {"provider": "Crypto++", "command": " ".join(cmd)}
    if shutil.which(CRYPTEST) is None:
        return [{**base, "cipher": c, "key_bits": k, "error":
                 "cryptest not found (Debian: apt install libcrypto++-utils)"} for c, _, k in wanted]
    t0 = time.time()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return [{**base, "cipher": c, "key_bits": k, "error": f"cryptest failed: {e}"}
                for c, _, k in wanted]
    rows, version = parse_cryptest_b2(out), _cryptopp_version()
    result = []
    for cipher, name, key_bits in wanted:
        row = None
        for mode in ("ECB", "CTR"):
            algo = f"{name}/{mode} ({key_bits}-bit key)"
            if algo in rows:
                row = rows[algo]
                break
        if row is None:
            result.append({**base, "cipher": cipher, "key_bits": key_bits,
                           "error": f"no '{name}/ECB|CTR ({key_bits}-bit key)' row in cryptest b2"})
            continue
        result.append({**base, "provider": f"Crypto++ {version}", "cipher": cipher,
                       "key_bits": key_bits, "algorithm": algo, "impl": row["impl"],
                       "throughput_mbps": round(row["mib_s"] * MIB_TO_MBIT, 1),
                       "key_setup_us": row["key_setup_us"],
                       "seconds": round(time.time() - t0, 1)})
    return result


def _openssl(cipher: str, key_bits: int, seconds: float) -> dict:
    from cryptography.hazmat.backends.openssl import backend
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    base = {"provider": f"OpenSSL {backend.openssl_version_text().split()[1]} (cryptography)",
            "cipher": cipher, "key_bits": key_bits, "algorithm": f"AES-{key_bits}/ECB",
            "impl": "libcrypto", "command": "python: cryptography Cipher(AES, ECB) update_into() "
                                            f"on a 16 MiB buffer for {seconds} s"}
    key = os.urandom(key_bits // 8)
    buf, out = bytes(16 << 20), bytearray((16 << 20) + 16)
    enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    enc.update_into(buf, out)                           # warm up
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        enc.update_into(buf, out)
        n += len(buf)
    mbps = n * 8 / (time.perf_counter() - t0) / 1e6
    keys = [os.urandom(key_bits // 8) for _ in range(20000)]
    t0 = time.perf_counter()
    for k in keys:
        Cipher(algorithms.AES(k), modes.ECB()).encryptor()
    us = (time.perf_counter() - t0) / len(keys) * 1e6
    return {**base, "throughput_mbps": round(mbps, 1), "key_setup_us": round(us, 3),
            "note": "key setup includes the Python call overhead of creating a context"}


def measure(points: list[dict], seconds: float = 0.25) -> list[dict]:
    """Software rows for the distinct (cipher, key_bits) of ``points`` (study point dicts)."""
    from ..registry import get_cipher
    seen, wanted_cpp, rows = set(), [], []
    for p in points:
        c = p.get("cipher")
        if not c:
            continue
        kb = p.get("key_bits") or get_cipher(c).key_bits[0]
        if (c, kb) in seen:
            continue
        seen.add((c, kb))
        sw = dict(get_cipher(c).software)
        if "openssl" in sw:
            rows.append(_openssl(c, kb, seconds * 4))
        if "cryptopp" in sw:
            wanted_cpp.append((c, sw["cryptopp"], kb))
    return rows + _cryptopp(wanted_cpp, seconds)
