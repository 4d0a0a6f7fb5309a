"""``cipherfab encrypt|decrypt``: stream a file through the simulated accelerator system.

ECB and CBC pad with PKCS#7 on encrypt and check and strip it on decrypt; CTR takes any
length.  The result is checked against the cipher's reference model (OpenSSL through
``cryptography`` for AES and DES) before the output file is written: on any failure no
output file is left behind.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..errors import CipherfabError
from ..registry import add_core_arguments, get_cipher, hex_key_problem, params_from_args
from .link import DEFAULT_LINK, LINKS

MODES = ("ecb", "cbc", "ctr")


def register(subparsers) -> None:
    for command in ("encrypt", "decrypt"):
        p = subparsers.add_parser(
            command, help=f"{command} a file through the simulated accelerator system",
            description=f"{command.capitalize()} FILE through the accelerator system around a "
                        "generated core (AXI4-Stream, FIFOs, the mode engine, AXI4-Lite registers), "
                        "simulated cycle by cycle with Verilator, its data moved through a link "
                        "model. Checks the result against the reference, writes --out, and prints "
                        "the cycles, the Fmax used, core and system throughput and where the time "
                        "went.")
        add_core_arguments(p, cipher_required=False)
        p.add_argument("--cipher", dest="cipher_opt", metavar="CIPHER", help="the cipher (or give it first)")
        p.add_argument("--iv", metavar="HEX", help="IV (CBC) or initial counter (CTR), one block in hex")
        p.add_argument("--mode", choices=MODES, required=True, help="ecb, cbc or ctr")
        p.add_argument("--in", dest="input", required=True, metavar="FILE", help="input file")
        p.add_argument("--out", dest="output", required=True, metavar="FILE", help="output file")
        p.add_argument("--link", default=DEFAULT_LINK, metavar="NAME",
                       help=f"host link model: {', '.join(LINKS)} (default {DEFAULT_LINK})")
        p.add_argument("--width", type=int, default=128, choices=(32, 64, 128), help="AXI4-Stream tdata bits")
        p.add_argument("--depth", type=int, default=512, metavar="BLOCKS", help="FIFO depth (default 512)")
        p.add_argument("--fmax", type=float, metavar="MHZ",
                       help="the clock to turn cycles into time (default: assumed 100 MHz; "
                            "`cipherfab build` measures it)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
        p.set_defaults(func=run, decrypt=command == "decrypt")


def _hex(text: str | None, bits: int, what: str) -> bytes:
    problem = hex_key_problem(text, bits)
    if problem:
        raise CipherfabError(f"{what}: {problem}")
    return bytes.fromhex(text)


def _params(args):
    cipher = args.cipher or args.cipher_opt
    if args.cipher and args.cipher_opt and args.cipher != args.cipher_opt:
        raise CipherfabError(f"two ciphers given: {args.cipher} and --cipher {args.cipher_opt}")
    if not cipher:
        raise CipherfabError("give the cipher: CIPHER or --cipher CIPHER (e.g. aes)")
    args.cipher = cipher
    key = args.key
    if key is None:
        raise CipherfabError("--key HEX is required")
    entry = get_cipher(cipher)
    arch = entry.arch(args.arch) if args.arch else entry.architectures[0]
    if "key" not in {p.name for p in arch.params}:     # the data key, not a built-in one
        args.key = None
    return params_from_args(args), key


def reference(cipher: str, key_bits: int, key: bytes, mode: str, iv: bytes, data: bytes,
              decrypt: bool) -> bytes:
    """The mode over the cipher's reference model, ECB calls in bulk where the mode allows."""
    model = get_cipher(cipher).reference_model(key_bits)
    bb = len(iv)
    if mode == "ecb":
        return (model.decrypt if decrypt else model.encrypt)(key, data)
    if mode == "ctr":
        n = -(-len(data) // bb)
        start = int.from_bytes(iv, "big")
        counters = b"".join(((start + i) % (1 << (8 * bb))).to_bytes(bb, "big") for i in range(n))
        stream = np.frombuffer(model.encrypt(key, counters), np.uint8)[:len(data)]
        return (np.frombuffer(data, np.uint8) ^ stream).tobytes()
    if decrypt:                                          # CBC decrypt: in bulk
        plain = np.frombuffer(model.decrypt(key, data), np.uint8)
        prev = np.frombuffer(iv + data[:-bb], np.uint8)
        return (plain ^ prev).tobytes()
    out, chain = bytearray(), iv                         # CBC encrypt: one block after another
    for at in range(0, len(data), bb):
        chain = model.encrypt(key, bytes(a ^ b for a, b in zip(data[at:at + bb], chain)))
        out += chain
    return bytes(out)


def run(args) -> int:
    from ..hw.modes import Mode
    from .driver import Accelerator
    from .link import get_link
    params, key_hex = _params(args)
    if args.fmax is not None and not args.fmax > 0:
        raise CipherfabError(f"--fmax {args.fmax:g}: a clock in MHz must be above 0")
    link = get_link(args.link)
    path = Path(args.input)
    if not path.is_file():
        raise CipherfabError(f"input file {path} not found")
    entry = get_cipher(params.cipher)
    mode_name = args.mode
    if mode_name == "ecb" and args.iv:
        raise CipherfabError("--iv does not apply to ecb")
    from ..generate import declaration
    info = declaration(params)             # key and IV checked before anything is compiled
    bb = info.block_bits // 8
    key = _hex(key_hex, info.key_bits or 4 * len(info.fixed_key), "--key")
    if info.key_interface == "none" and key.hex() != info.fixed_key:
        raise CipherfabError(f"{params.top} is built for key {info.fixed_key}")
    if mode_name != "ecb" and not args.iv:
        raise CipherfabError(f"--iv HEX ({bb} bytes) is required for {mode_name}")
    iv = _hex(args.iv, 8 * bb, "--iv") if args.iv else bytes(bb)
    data = path.read_bytes()
    if not data and (mode_name == "ctr" or args.decrypt):
        raise CipherfabError(f"input file {path} is empty")
    if mode_name != "ctr":
        if args.decrypt and len(data) % bb:
            raise CipherfabError(f"ciphertext of {len(data)} bytes is not a whole number of {bb}-byte blocks")
        if not args.decrypt:
            pad = bb - len(data) % bb
            data += bytes([pad]) * pad
    acc = Accelerator(params, width=args.width, depth=args.depth, fmax_mhz=args.fmax)
    mode = {("ecb", False): Mode.ECB_ENCRYPT, ("ecb", True): Mode.ECB_DECRYPT,
            ("cbc", False): Mode.CBC_ENCRYPT, ("cbc", True): Mode.CBC_DECRYPT,
            ("ctr", False): Mode.CTR, ("ctr", True): Mode.CTR}[mode_name, args.decrypt]
    result = _stream(acc, key, mode, data, iv, link, args.quiet)
    want = reference(params.cipher, 8 * len(key), key, mode_name, iv, data,
                     args.decrypt and mode_name != "ctr")
    if result.out != want:
        raise CipherfabError("the hardware result differs from the reference model", exit_code=1)
    out = result.out
    if args.decrypt and mode_name != "ctr":
        pad = out[-1]
        if not 1 <= pad <= bb or out[-pad:] != bytes([pad]) * pad:
            raise CipherfabError("wrong padding after decryption (wrong key, IV or mode?)")
        out = out[:-pad]
    _write(Path(args.output), out)
    _summary(args, params, entry, result, len(data))
    return 0


def _stream(acc, key, mode, data, iv, link, quiet):
    if quiet or not sys.stderr.isatty():
        return acc.run(key, mode, data, iv, link=link)
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn
    with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                  TimeRemainingColumn(), transient=True) as bar:
        task = bar.add_task("streaming", total=len(data))
        return acc.run(key, mode, data, iv, link=link,
                       progress=lambda done: bar.update(task, completed=done))


def _write(path: Path, data: bytes) -> None:
    """Write atomically: a temporary file in the same folder, renamed when complete."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)              # as open() would have made it
        os.replace(tmp, path)
    except OSError as e:
        raise CipherfabError(f"cannot write {path}: {e.strerror or e}") from None


def _summary(args, params, entry, r, n_bytes) -> None:
    busy = r.blocks * r.core_cycles_per_block
    print(f"{'decrypted' if args.decrypt else 'encrypted'} {n_bytes} bytes ({r.blocks} blocks) with "
          f"{params.top}, {args.mode}, link {r.link.name}; checked against the reference")
    print(f"cycles: {r.cycles} (transfer start to last output); core busy {busy} "
          f"({r.core_cycles_per_block} per block)")
    print(f"Fmax used: {r.fmax_mhz:g} MHz ({r.fmax_source})")
    print(f"core throughput: {r.core_mbps:.1f} Mbit/s; system throughput: {r.system_mbps:.1f} Mbit/s "
          f"({100 * r.system_mbps / r.core_mbps:.1f}% of the core)")
    print(f"where the time went: input link not delivered {r.in_link_wait} cycles, output link "
          f"not taking {r.out_link_wait}, core starved (input FIFO empty) {r.counters['starved']}, "
          f"results blocked (output FIFO full) {r.counters['blocked']}")
