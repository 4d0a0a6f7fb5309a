"""``cipherfab mac``: CMAC (SP 800-38B) of a file through the simulated accelerator system.

Generating, the tag (``--tag-bits`` / 8 bytes, 128 by default) is written to ``--out``;
verifying (``--verify TAGFILE``: the received tag, its length the tag's), the system gives
its verdict and nothing is written: "tag verified", or "authentication failed" and exit 1.
Either way the result is checked against the reference first (OpenSSL's CMAC through
``cryptography`` for AES, SP 800-38B over the cipher's model for the other 128-bit block
ciphers).  CMAC runs in the system's GCM layer, so it needs a 128-bit block cipher that
encrypts.  Every option is checked before the system is generated and compiled.
"""

from __future__ import annotations

import contextlib

from ..argtypes import integer
from ..errors import CipherfabError
from ..hw.gcm.gcm_control import CMAC_TAG_BYTES
from ..registry import add_core_arguments
from . import cli as host
from .link import get_link
from .mode_reference import cmac_reference
from .mode_vectors import check_cmac_core

TAG_BITS = tuple(8 * n for n in CMAC_TAG_BYTES)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "mac", help="CMAC of a file through the simulated accelerator system",
        description="CMAC (NIST SP 800-38B) of FILE through the accelerator system around a "
                    "generated core (its GCM layer runs CMAC on the core), simulated cycle by "
                    "cycle with Verilator. Writes the tag to --out, or with --verify TAGFILE "
                    "checks a received tag (exit 1: authentication failed). The result is "
                    "checked against the reference every run.")
    add_core_arguments(p, cipher_required=False)
    host._describe_key(p)
    p.add_argument("--cipher", dest="cipher_opt", metavar="CIPHER", help="the cipher (or give it first)")
    p.add_argument("--in", dest="input", required=True, metavar="FILE", help="the message")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--out", dest="output", metavar="FILE", help="write the tag here (raw bytes)")
    what.add_argument("--verify", metavar="TAGFILE",
                      help="check this received tag (raw bytes, 4 to 16) instead of writing one")
    p.add_argument("--tag-bits", type=integer, choices=TAG_BITS, metavar="N",
                   help="the tag's length, 32 to 128 in bytes (default 128; with --verify: the "
                        "tag file's)")
    host.add_run_options(p)
    p.set_defaults(func=run, decrypt=False, mode="cmac")


def run(args) -> int:
    from ..generate import declaration, system_shape
    from .driver import Accelerator
    params, key_hex = host._params(args)
    link = get_link(args.link)
    source = host._input(args.input)
    received = None
    if args.verify is not None:
        received = host._read(host._input(args.verify, "--verify"), "--verify")
        if len(received) not in CMAC_TAG_BYTES:
            raise CipherfabError(f"--verify {args.verify}: a CMAC tag is {CMAC_TAG_BYTES[0]} to "
                                 f"{CMAC_TAG_BYTES[-1]} bytes, not {len(received)}")
        if args.tag_bits is not None and args.tag_bits != 8 * len(received):
            raise CipherfabError(f"--tag-bits {args.tag_bits}, but --verify {args.verify} holds "
                                 f"a {8 * len(received)}-bit tag")
    tag_bytes = len(received) if received is not None else (args.tag_bits or 128) // 8
    with host._Output(args.output) if args.output is not None else contextlib.nullcontext() as target:
        info = declaration(params)        # everything checked before anything is compiled
        width, depth = system_shape(params, args.width, args.depth, ("--width", "--depth"))
        host._check_direction(args, params, info)
        check_cmac_core(params, info)
        key = host._key(key_hex, params, info)
        entropy = host._entropy(args.seed_hex, params, info)
        data = host._read(source)
        acc = Accelerator(params, width=width, depth=depth, fmax_mhz=args.fmax, entropy=entropy)
        result = _run(acc, key, data, received, tag_bytes, link, args.quiet)
        want = cmac_reference(params.cipher, key, data)[:tag_bytes]
        if received is None:
            if result.tag != want:
                raise CipherfabError("the hardware tag differs from the reference model", exit_code=1)
            target.commit(result.tag)
        elif result.authentic != (received == want):
            raise CipherfabError("the hardware's verdict on the tag differs from the reference model",
                                 exit_code=1)
    _summary(args, params, result, len(data), tag_bytes)
    if received is not None and not result.authentic:
        raise CipherfabError(host.AUTH_FAILED, exit_code=1)
    return 0


def _run(acc, key, data, received, tag_bytes, link, quiet):
    def go(progress=None):
        return acc.run_cmac(key, data, received, tag_bytes, link=link, progress=progress)
    return host.with_progress(go, len(data), quiet)


def _summary(args, params, r, n: int, tag_bytes: int) -> None:
    what = "tag verified" if r.authentic else ("tag refused" if r.authentic is False
                                               else f"{8 * tag_bytes}-bit tag written")
    print(f"cmac of {n} bytes ({r.blocks} block{'' if r.blocks == 1 else 's'}) with {params.top}, "
          f"link {r.link.name}: {what}; checked against the reference")
    end = "the last input taken; the verdict follows" if r.authentic is not None else "the tag out"
    print(f"cycles: {r.cycles} (transfer start to {end}); core "
          f"{r.core_cycles_per_block} cycles per block in CBC (one block in flight)")
    print(f"Fmax used: {r.fmax_mhz:g} MHz ({r.fmax_source})")
    if r.authentic is None:                   # verifying, the clock stops at the input's end
        print(f"system throughput: {r.system_mbps:.1f} Mbit/s of message")
