"""``cipherfab encrypt|decrypt``: stream a file through the simulated accelerator system.

ECB and CBC pad with PKCS#7 on encrypt and check and strip it on decrypt; CTR, OFB and CFB
(full-block segments: CFB128 for AES, CFB64 for DES; CFB8 and CFB1 with 8- and 1-bit
segments, the file's bits most significant first) take any length.  GCM (128-bit block
ciphers) writes the ciphertext followed by the tag; decrypting,
the file's last ``--tag-bits`` / 8 bytes are the tag, and the plaintext is written only
when the system and the reference both accept the tag: otherwise one line, "authentication
failed", exit 1, and no output file (the plaintext never leaves memory).  XTS (128-bit block
ciphers; IEEE 1619) takes the two keys as one ``--key`` (K1 then K2), cuts the file into data
units of ``--data-unit-bytes`` (default 512), the first taking ``--tweak`` (16 bytes in hex)
or ``--data-unit N`` (the tweak is N as a little-endian 128-bit number), each next one +1;
a unit that is not whole blocks steals ciphertext.  The result is checked against the cipher's reference model (OpenSSL through
``cryptography`` for AES and DES) before the output file is written: on any failure no
output file is left behind.

Every option is checked before the system is generated and compiled (which takes from
seconds to minutes): the input must be a readable regular file, the output's folder must
take a file, the key and IV must be hex of the core's sizes, the stream width must divide
the block, the FIFOs must fit the device's block RAM, and the core must run the mode's
direction.  ``decrypt`` in ECB or CBC builds a decrypting core (``--direction decrypt``)
unless ``--direction`` is given: decryption is what the user asked for, and the
registry's default core (encrypt only) could not do it.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path


from ..argtypes import integer, real_between
from ..errors import CipherfabError
from ..hw.stream.axis import WIDTHS
from ..userfiles import input_file, output_file, read_bytes
from ..registry import add_core_arguments, get_cipher, params_from_args
from . import ccm
from .gcm_reference import gcm_reference
from .driver import XTS_UNIT_MAX, xts_units
from .mode_reference import (cfb_segment_agrees, check_two_key_core, check_wide_core,  # noqa: F401
                             reference, system_mode, xts_reference, xts_unit_tweaks)
from .link import DEFAULT_LINK, FMAX_MHZ, LINKS, get_link

MODES = ("ecb", "cbc", "ctr", "ofb", "cfb", "cfb8", "cfb1", "gcm", "ccm", "xts")
STREAM_MODES = ("ctr", "ofb", "cfb", "cfb8", "cfb1")   #: any length; decrypted with the encrypting core
TAG_BITS = (32, 64, 96, 104, 112, 120, 128)       #: GCM: SP 800-38D 5.2.1.2 and Appendix C
CCM_TAG_BITS = tuple(8 * t for t in ccm.TAG_BYTES)      #: CCM: SP 800-38C A.1


def register(subparsers) -> None:
    provide_hooks()
    for command in ("encrypt", "decrypt"):
        p = subparsers.add_parser(
            command, help=f"{command} a file through the simulated accelerator system",
            description=f"{command.capitalize()} FILE through the accelerator system around a "
                        "generated core (AXI4-Stream, FIFOs, the mode engine, AXI4-Lite registers), "
                        "simulated cycle by cycle with Verilator, its data moved through a link "
                        "model. Checks the result against the reference, writes --out, and prints "
                        "the cycles, the Fmax used, core and system throughput and where the time "
                        "went." + (" ECB and CBC decryption build a decrypting core (--direction "
                                   "decrypt) unless --direction is given." if command == "decrypt"
                                   else ""))
        add_core_arguments(p, cipher_required=False)
        _describe_key(p)
        p.add_argument("--cipher", dest="cipher_opt", metavar="CIPHER", help="the cipher (or give it first)")
        p.add_argument("--iv", metavar="HEX", help="IV (CBC, OFB, CFB) or initial counter (CTR), one "
                                                   "block in hex; GCM: the IV, 12 bytes recommended, any "
                                                   "length >= 1 byte")
        p.add_argument("--mode", choices=MODES, required=True,
                       help="ecb, cbc, ctr, ofb, cfb (full-block segments: CFB128 for AES), cfb8, "
                            "cfb1 (8- and 1-bit segments: a block operation each), gcm, ccm or xts")
        p.add_argument("--aad", metavar="FILE", help="GCM, CCM: additional authenticated data, from a "
                                                     "file (default none)")
        p.add_argument("--tag-bits", type=integer, choices=sorted(set(TAG_BITS + CCM_TAG_BITS)), metavar="N",
                       help="GCM: the tag's length, 128 (default), 120, 112, 104, 96, 64 or 32; "
                            "CCM: 128 (default), 112, 96, 80, 64, 48 or 32")
        p.add_argument("--tweak", metavar="HEX", help="XTS: the first data unit's tweak, 16 bytes "
                                                      "in hex (each next unit's: +1, little-endian)")
        p.add_argument("--data-unit", type=integer, metavar="N",
                       help="XTS: the first data unit's number (its tweak: N as a little-endian "
                            "128-bit number), instead of --tweak")
        p.add_argument("--data-unit-bytes", type=integer, metavar="BYTES",
                       help=f"XTS: bytes per data unit, 16 to {XTS_UNIT_MAX} (default 512, a disk "
                            "sector); a last unit of the file may be shorter, not under 16")
        p.add_argument("--in", dest="input", required=True, metavar="FILE", help="input file")
        p.add_argument("--out", dest="output", required=True, metavar="FILE",
                       help="output file (replaced, keeping its permissions, only once the result "
                            "is checked)")
        add_run_options(p)
        p.set_defaults(func=run, decrypt=command == "decrypt")


def add_run_options(p) -> None:
    """The options of a run through the simulated system (``encrypt``, ``decrypt``, ``mac``)."""
    p.add_argument("--link", default=DEFAULT_LINK, metavar="NAME",
                   help=f"host link model: {', '.join(LINKS)} (default {DEFAULT_LINK})")
    p.add_argument("--width", type=integer, default=None, choices=WIDTHS,
                   help="AXI4-Stream tdata bits, dividing the block (default: the block's size, "
                        "at most 128)")
    p.add_argument("--depth", type=integer, default=None, metavar="BLOCKS",
                   help="FIFO depth in blocks (default 512; at most what the default device's "
                        "block RAM holds)")
    p.add_argument("--fmax", type=real_between(*FMAX_MHZ, "MHz"), metavar="MHZ",
                   help="the clock to turn cycles into time (default: assumed 100 MHz; "
                        "`cipherfab build` measures it)")
    p.add_argument("--seed-hex", metavar="HEX",
                   help="a core with an entropy input (seed port): the seed it takes after reset, "
                        "seed bits / 4 hex digits, for a reproducible run (default: from os.urandom)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def provide_hooks() -> None:
    """GCM lives in the system, this layer: provide the hooks ``sim --mode gcm`` and
    ``verify --all`` declare (:mod:`cipherfab.sim.hooks`; that layer may not import this one)."""
    from ..sim import hooks
    from . import gcm_vectors, mode_vectors, verify_gcm
    hooks.provide("gcm_vectors", gcm_vectors.run_gcm_vectors)
    hooks.provide("mode_vectors", mode_vectors.run_mode_vectors)
    hooks.provide("gcm_checks", verify_gcm)


def _describe_key(parser) -> None:
    """``--key`` is the registry's option (a key-specific core's built-in key) and here also
    the data key: say so, rather than the built-in key's help alone."""
    action = parser._option_string_actions["--key"]
    action.metavar = "HEX"
    action.help = ("the key in hex, key bits / 4 digits (--key-bits); with a key_specific "
                   "architecture it is also the key the core is built for")


# --- the options, checked before anything is generated ---

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
    if not entry.architectures:
        raise CipherfabError(f"{cipher}: no hardware architecture yet (reference model only)")
    arch = entry.arch(args.arch) if args.arch else entry.architectures[0]
    if "key" not in {p.name for p in arch.params}:     # the data key, not a built-in one
        args.key = None
    direction = arch.param("direction")
    need = _direction_needed(args)
    if (need != "encrypt" and getattr(args, "direction", None) is None
            and direction is not None and need in direction.choices):
        args.direction = need
    return params_from_args(args), key


def _direction_needed(args) -> str:
    """The core direction the command's mode runs (CTR, OFB, CFB and GCM decrypt with the
    encrypting core; XTS decrypts its data and encrypts its tweaks: both)."""
    if args.decrypt and args.mode == "xts":
        return "both"
    return "decrypt" if args.decrypt and args.mode in ("ecb", "cbc") else "encrypt"


def _check_gcm_options(args) -> None:
    """--aad and --tag-bits belong to GCM and CCM, --tweak, --data-unit and --data-unit-bytes to
    XTS."""
    if args.mode not in ("gcm", "ccm"):
        for given, option in ((args.aad, "--aad"), (args.tag_bits, "--tag-bits")):
            if given is not None:
                raise CipherfabError(f"{option} applies to --mode gcm or ccm, not {args.mode}")
    tags = {"gcm": TAG_BITS, "ccm": CCM_TAG_BITS}.get(args.mode)
    if tags and args.tag_bits is not None and args.tag_bits not in tags:
        raise CipherfabError(f"--tag-bits {args.tag_bits}: a {args.mode.upper()} tag is "
                             f"{', '.join(map(str, reversed(tags[1:])))} or {tags[0]} bits")
    if args.mode != "xts":
        for given, option in ((args.tweak, "--tweak"), (args.data_unit, "--data-unit"),
                              (args.data_unit_bytes, "--data-unit-bytes")):
            if given is not None:
                raise CipherfabError(f"{option} applies to --mode xts, not {args.mode}")
        return
    if args.iv is not None:
        raise CipherfabError("--iv does not apply to xts: give --tweak HEX or --data-unit N")
    if (args.tweak is None) == (args.data_unit is None):
        raise CipherfabError("xts takes the first data unit's tweak: give --tweak HEX (16 bytes) "
                             "or --data-unit N, one of them")
    if args.data_unit is not None and not 0 <= args.data_unit < 1 << 128:
        raise CipherfabError(f"--data-unit {args.data_unit}: a data unit number is 0 to 2^128 - 1")
    if args.data_unit_bytes is not None and not 16 <= args.data_unit_bytes <= XTS_UNIT_MAX:
        raise CipherfabError(f"--data-unit-bytes {args.data_unit_bytes}: a data unit is 16 to "
                             f"{XTS_UNIT_MAX} bytes (2^20 blocks)")


def _check_direction(args, params, info) -> None:
    """Refuse a core that cannot run the mode's direction, saying what would."""
    need = _direction_needed(args)
    if need in info.directions or (need == "both" and len(info.directions) == 2):
        return
    work = f"{args.mode} {'decryption' if args.decrypt else 'encryption'}"
    option = params.architecture.param("direction")
    if option is not None and need in option.choices:
        raise CipherfabError(f"{params.top} only {info.directions[0]}s: {work} needs "
                             f"--direction {need}" + (" (or both)" if need != "both" else
                                                      " (its tweaks are encrypted)"))
    able = [a.name for a in get_cipher(params.cipher).architectures
            if a.param("direction") is not None and need in a.param("direction").choices]
    ctr = "; or use --mode ctr, ofb or cfb" if need == "decrypt" else ""
    if not able:
        raise CipherfabError(f"no {params.cipher} architecture {need}s: {work} is not available"
                             + ("; --mode ctr, ofb or cfb decrypts with the encrypting core"
                                if ctr else ""))
    raise CipherfabError(f"{params.cipher} {params.arch} only {info.directions[0]}s: {work} needs "
                         f"--arch {' or '.join(able)} (with --direction {need}){ctr}")


def _hex_problem(text: str) -> str | None:
    """What keeps ``text`` from being bytes in hex, or None."""
    if not text:
        return "empty"
    bad = next((c for c in text if c not in "0123456789abcdefABCDEF"), None)
    if bad is not None:
        return f"{bad!r} is not a hex digit"
    return "an odd number of hex digits" if len(text) % 2 else None


def _key(text: str, params, info, keys: int = 1) -> bytes:
    """The data key: hex of the core's key size (XTS: ``keys`` 2, two keys); a valid key of
    another size the cipher takes is answered with the --key-bits that would build for it."""
    problem = _hex_problem(text)
    if keys == 2:
        return _xts_key(text, problem, params, info)
    bits = info.key_bits or 4 * len(info.fixed_key)
    if problem:
        raise CipherfabError(f"--key {text!r}: {problem}; a {bits}-bit key is {bits // 4} hex digits")
    if 4 * len(text) != bits:
        option = params.architecture.param("key_bits")
        hint = (f": add --key-bits {4 * len(text)}"
                if option is not None and 4 * len(text) in option.choices else "")
        raise CipherfabError(f"--key has {len(text)} hex digits, a {4 * len(text)}-bit key; "
                             f"{params.top} takes {bits}-bit keys ({bits // 4} digits){hint}")
    key = bytes.fromhex(text)
    if info.key_interface == "none" and key.hex() != info.fixed_key.lower():
        raise CipherfabError(f"{params.top} is built for key {info.fixed_key}")
    return key


def _xts_key(text: str, problem: str | None, params, info) -> bytes:
    """XTS's key: K1 then K2, each of the core's key size (a key-specific core has none)."""
    bits = info.key_bits
    check_two_key_core(params.top, info)
    if problem:
        raise CipherfabError(f"--key {text!r}: {problem}; an XTS key is two {bits}-bit keys, "
                             f"{bits // 2} hex digits")
    if 4 * len(text) != 2 * bits:
        option = params.architecture.param("key_bits")
        hint = (f": add --key-bits {2 * len(text)}"
                if option is not None and 2 * len(text) in option.choices else "")
        raise CipherfabError(f"--key has {len(text)} hex digits; XTS with {params.top} takes two "
                             f"{bits}-bit keys, {bits // 2} digits{hint}")
    key = bytes.fromhex(text)
    if key[:bits // 8] == key[bits // 8:]:
        raise CipherfabError("--key: the XTS key's two halves are equal (IEEE 1619-2018 5.1 refuses it)")
    return key


def _entropy(text: str | None, params, info) -> bytes | None:
    """``--seed-hex``: the seed of a core with a seed port, its size in hex (None: not given)."""
    if text is None:
        return None
    if not info.seed_bits:
        raise CipherfabError(f"--seed-hex: {params.top} has no seed port (it takes no seed)")
    digits = 2 * -(-info.seed_bits // 8)
    problem = _hex_problem(text) or (f"{len(text)} hex digits" if len(text) != digits else None)
    if problem:
        raise CipherfabError(f"--seed-hex {text!r}: {problem}; {params.top} takes a {info.seed_bits}-bit "
                             f"seed, {digits} hex digits")
    return bytes.fromhex(text)


def _iv(args, params, info) -> bytes:
    """The IV (CBC, OFB, CFB) or initial counter (CTR): one block in hex; ECB takes none."""
    bits = info.block_bits
    if args.mode == "xts":
        if args.tweak is None:
            return args.data_unit.to_bytes(16, "little")
        problem = _hex_problem(args.tweak) or (f"{len(args.tweak)} hex digits" if len(args.tweak) != 32 else None)
        if problem:
            raise CipherfabError(f"--tweak {args.tweak!r}: {problem}; the XTS tweak is 16 bytes, 32 hex digits")
        return bytes.fromhex(args.tweak)
    if args.mode == "ccm":
        if args.iv is None:
            raise CipherfabError("--iv HEX is required for ccm: the nonce, 7 to 13 bytes (14 to 26 hex "
                                 "digits; 13 leaves payloads up to 64 KiB, 12 up to 16 MiB)")
        problem = _hex_problem(args.iv) or (None if len(args.iv) // 2 in ccm.NONCE_BYTES
                                            else f"{len(args.iv) // 2} bytes")
        if problem:
            raise CipherfabError(f"--iv {args.iv!r}: {problem}; the CCM nonce is 7 to 13 bytes in hex")
        return bytes.fromhex(args.iv)
    if args.mode == "gcm":
        if args.iv is None:
            raise CipherfabError("--iv HEX is required for gcm: the IV, 12 bytes (24 hex digits) "
                                 "recommended, any length of at least 1 byte")
        problem = _hex_problem(args.iv)
        if problem:
            raise CipherfabError(f"--iv {args.iv!r}: {problem}; the GCM IV is bytes in hex, 12 bytes "
                                 f"(24 hex digits) recommended")
        return bytes.fromhex(args.iv)
    if args.mode == "ecb":
        if args.iv is not None:
            raise CipherfabError("--iv does not apply to ecb")
        return bytes(bits // 8)
    what = "initial counter" if args.mode == "ctr" else "IV"
    if args.iv is None:
        raise CipherfabError(f"--iv HEX is required for {args.mode}: the {what}, one {bits}-bit "
                             f"block ({bits // 4} hex digits)")
    problem = _hex_problem(args.iv)
    if problem or 4 * len(args.iv) != bits:
        shown = problem or f"{len(args.iv)} hex digits"
        raise CipherfabError(f"--iv {args.iv!r}: {shown}; the {what} is one {bits}-bit "
                             f"{params.cipher} block, {bits // 4} hex digits")
    return bytes.fromhex(args.iv)


def _input(name: str, option: str = "--in") -> Path:
    """The input file, checked before any work (:func:`cipherfab.userfiles.input_file`): a
    regular file within the data limit (a device such as /dev/zero would never end, a folder
    has no bytes)."""
    return input_file(name, "data", option)


def _read(path: Path, option: str = "--in") -> bytes:
    return read_bytes(path, "data", option)


class _Output:
    """``--out``, checked before the work and written only after it.

    A regular file (new or existing) is written atomically: a temporary file, made now
    in the same folder (so a folder that takes no file is refused before any simulation),
    renamed over the target when the result is checked, removed on any failure.  A
    device or pipe (``/dev/null``) is written in place, never replaced by a file."""

    def __init__(self, name: str):
        path = output_file(name, "--out", devices=True)            # one line for any bad name
        self.device = path.exists() and not path.is_file()       # /dev/null, /dev/stdout, a pipe
        if not self.device and path.is_symlink():
            path = path.resolve()                                  # write through a link to a file
        self.path, self.tmp = path, None
        if self.device:
            if not os.access(path, os.W_OK):
                raise CipherfabError(f"--out {name}: not writable")
            return
        folder = path.parent
        if not folder.is_dir():
            raise CipherfabError(f"--out {name}: {folder} is not a directory" if folder.exists()
                                 else f"--out {name}: no directory {folder}")
        try:
            fd, self.tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
            os.close(fd)
        except OSError as e:
            raise CipherfabError(f"--out {name}: cannot write in {folder}: {e.strerror or e}") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.tmp:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass

    def commit(self, data: bytes) -> None:
        try:
            if self.device:
                with open(self.path, "wb") as f:
                    f.write(data)
                return
            with open(self.tmp, "wb") as f:
                f.write(data)
            os.chmod(self.tmp, self._mode())
            os.replace(self.tmp, self.path)
            self.tmp = None
        except OSError as e:
            raise CipherfabError(f"cannot write {self.path}: {e.strerror or e}") from None

    def _mode(self) -> int:
        """An existing file's permissions, or what open() would have given a new one."""
        try:
            return stat.S_IMODE(self.path.stat().st_mode)
        except OSError:
            mask = os.umask(0)
            os.umask(mask)
            return 0o666 & ~mask


# --- the run ---

def _message(args, data: bytes, bb: int) -> tuple[bytes, int]:
    """(what is streamed, PKCS#7 padding bytes added): refuses input the mode cannot take."""
    if args.mode in ("gcm", "ccm", "xts"):            # their own checks: run_gcm, ccm.check, xts_units
        return data, 0
    if not data and (args.mode in STREAM_MODES or args.decrypt):
        raise CipherfabError(f"--in {args.input}: the file is empty, nothing to "
                             f"{'decrypt' if args.decrypt else 'encrypt'}")
    if args.mode in STREAM_MODES:
        return data, 0
    if args.decrypt:
        if len(data) % bb:
            raise CipherfabError(f"--in {args.input}: {len(data)} bytes of {args.mode} ciphertext "
                                 f"are not a whole number of {bb}-byte blocks")
        return data, 0
    pad = bb - len(data) % bb
    return data + bytes([pad]) * pad, pad


def run(args) -> int:
    from ..generate import declaration, system_shape
    from .driver import Accelerator
    _check_gcm_options(args)
    params, key_hex = _params(args)
    link = get_link(args.link)
    source = _input(args.input)
    aad_file = _input(args.aad, "--aad") if args.aad is not None else None
    with _Output(args.output) as target:
        info = declaration(params)        # everything checked before anything is compiled
        width, depth = system_shape(params, args.width, args.depth, ("--width", "--depth"))
        _check_direction(args, params, info)
        if args.mode in ("gcm", "ccm", "xts"):
            check_wide_core(args.mode, params.cipher, info)
        key = _key(key_hex, params, info, 2 if args.mode == "xts" else 1)
        iv = _iv(args, params, info)
        entropy = _entropy(args.seed_hex, params, info)
        bb = info.block_bits // 8
        raw = _read(source)
        data, padding = _message(args, raw, bb)
        if args.mode == "gcm":
            aad = _read(aad_file, "--aad") if aad_file else b""
            acc = Accelerator(params, width=width, depth=depth, fmax_mhz=args.fmax, entropy=entropy)
            result, out = _gcm(args, params, acc, key, iv, aad, data, link)
            target.commit(out)
            _summary(args, params, result, len(raw), 0, aad=len(aad))
            return 0
        if args.mode == "ccm":
            aad = _read(aad_file, "--aad") if aad_file else b""
            tag_bytes = (args.tag_bits or 128) // 8
            text = data[:len(data) - tag_bytes] if args.decrypt else data
            ccm.check(len(iv), tag_bytes, len(aad), len(text))
            acc = Accelerator(params, width=width, depth=depth, fmax_mhz=args.fmax, entropy=entropy)
            result, out = _ccm(args, params, acc, key, iv, aad, data, tag_bytes, link)
            target.commit(out)
            _summary(args, params, result, len(raw), 0, aad=len(aad))
            return 0
        if args.mode == "xts":
            units = xts_units(params.top, info, key, args.decrypt, iv, raw,
                              args.data_unit_bytes or 512)
            acc = Accelerator(params, width=width, depth=depth, fmax_mhz=args.fmax, entropy=entropy)
            result = with_progress(lambda progress=None: acc.run_xts(
                key, args.decrypt, iv, raw, args.data_unit_bytes or 512, link=link,
                progress=progress), len(raw), args.quiet)
            want = b"".join(xts_reference(params.cipher, key, t, u, args.decrypt)
                            for t, u in zip(xts_unit_tweaks(iv, len(units)), units))
            if result.out != want:
                raise CipherfabError("the hardware result differs from the reference model", exit_code=1)
            target.commit(result.out)
            _summary(args, params, result, len(raw), 0, units=len(units))
            return 0
        acc = Accelerator(params, width=width, depth=depth, fmax_mhz=args.fmax, entropy=entropy)
        mode = system_mode(args.mode, args.decrypt)
        result = _stream(acc, key, mode, data, iv, link, args.quiet)
        if mode.segment_bits:
            agrees = cfb_segment_agrees(params.cipher, key, mode.segment_bits, iv, data, result.out,
                                        args.decrypt)
        else:
            agrees = result.out == reference(params.cipher, 8 * len(key), key, args.mode, iv, data,
                                             args.decrypt and args.mode not in ("ctr", "ofb"))
        if not agrees:
            raise CipherfabError("the hardware result differs from the reference model", exit_code=1)
        out = result.out
        if args.decrypt and args.mode not in STREAM_MODES:
            padding = out[-1]
            if not 1 <= padding <= bb or out[-padding:] != bytes([padding]) * padding:
                raise CipherfabError("wrong padding after decryption (wrong key, IV or mode?)")
            out = out[:-padding]
        target.commit(out)
    _summary(args, params, result, len(raw), padding)
    return 0


AUTH_FAILED = "authentication failed"


def _gcm(args, params, acc, key, iv, aad, data, link):
    """(the run, the bytes to write) of a GCM encryption or decryption; a tag that the
    system or the reference does not accept is one line and exit 1, nothing written."""
    tag_bytes = (args.tag_bits or 128) // 8
    if not args.decrypt:
        result = _stream(acc, key, None, data, iv, link, args.quiet,
                         gcm=dict(decrypt=False, aad=aad, tag_bytes=tag_bytes))
        if (result.out, result.tag) != gcm_reference(params.cipher, key, iv, aad, data, tag_bytes, False):
            raise CipherfabError("the hardware result differs from the reference model", exit_code=1)
        return result, result.out + result.tag
    text, tag = _split_tag(data, tag_bytes)
    result = _stream(acc, key, None, text, iv, link, args.quiet,
                     gcm=dict(decrypt=True, aad=aad, tag=tag, tag_bytes=tag_bytes))
    return result, _opened(result, gcm_reference(params.cipher, key, iv, aad, text, tag_bytes, True, tag))


def _split_tag(data: bytes, tag_bytes: int) -> tuple[bytes, bytes]:
    """(text, tag) of a file that ends in its tag; a file shorter than a tag is
    "authentication failed" (exit 1)."""
    if len(data) < tag_bytes:
        raise CipherfabError(AUTH_FAILED, exit_code=1)
    return data[:len(data) - tag_bytes], data[len(data) - tag_bytes:]


def _opened(result, want: bytes | None) -> bytes:
    """The plaintext of an authenticated decryption once the system's verdict and the
    reference's (``want``: None for a refused tag) agree and accept; else one line, exit 1."""
    if result.authentic != (want is not None):
        raise CipherfabError("the hardware's verdict on the tag differs from the reference model",
                             exit_code=1)
    if not result.authentic:
        raise CipherfabError(AUTH_FAILED, exit_code=1)
    if result.out != want:
        raise CipherfabError("the hardware result differs from the reference model", exit_code=1)
    return result.out


def _ccm(args, params, acc, key, nonce, aad, data, tag_bytes, link):
    """(the run, the bytes to write) of a CCM encryption (ciphertext, then the tag) or
    decryption (the file's last ``tag_bytes`` are the tag); a tag that the driver or the
    reference does not accept is one line and exit 1, nothing written."""
    if not args.decrypt:
        result = ccm.run(acc, key, False, nonce, aad, data, None, tag_bytes, link=link)
        if (result.out, result.tag) != ccm.reference(params.cipher, key, nonce, aad, data, tag_bytes, False):
            raise CipherfabError("the hardware result differs from the reference model", exit_code=1)
        return result, result.out + result.tag
    text, tag = _split_tag(data, tag_bytes)
    result = ccm.run(acc, key, True, nonce, aad, text, tag, tag_bytes, link=link)
    return result, _opened(result, ccm.reference(params.cipher, key, nonce, aad, text, tag_bytes, True, tag))


def _stream(acc, key, mode, data, iv, link, quiet, gcm=None):
    def go(progress=None):
        if gcm is not None:
            return acc.run_gcm(key, gcm["decrypt"], iv, gcm["aad"], data, gcm.get("tag"),
                               gcm["tag_bytes"], link=link, progress=progress)
        return acc.run(key, mode, data, iv, link=link, progress=progress)
    return with_progress(go, len(data), quiet)


def with_progress(go, total: int, quiet: bool):
    """``go(progress)``, with a progress bar over ``total`` bytes on a terminal."""
    if quiet or not sys.stderr.isatty():
        return go()
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn
    with Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                  TimeRemainingColumn(), transient=True) as bar:
        task = bar.add_task("streaming", total=total)
        return go(lambda done: bar.update(task, completed=done))


def _summary(args, params, r, n_in: int, padding: int, aad: int | None = None,
             units: int | None = None) -> None:
    """The run in a few lines: the input's size as given, the padding on its own."""
    busy = r.blocks * r.core_cycles_per_block
    if aad is not None:
        tag = (args.tag_bits or 128)
        pad = (f"; {aad} bytes of AAD, a {tag}-bit tag "
               + ("checked" if args.decrypt else "appended"))
    elif units is not None:
        pad = f"; {units} data unit{'s' * (units != 1)} of {args.data_unit_bytes or 512} bytes"
    elif not padding:
        pad = ""
    elif args.decrypt:
        pad = f"; {padding} bytes of PKCS#7 padding removed, {n_in - padding} written"
    else:
        pad = f", {padding} bytes of PKCS#7 padding added"
    unit = "segment" if args.mode in ("cfb8", "cfb1") else "block"  # CFB8, CFB1: a block operation each
    blocks = f"{r.blocks} {unit}" + ("" if r.blocks == 1 else "s")
    print(f"{'decrypted' if args.decrypt else 'encrypted'} {n_in} bytes ({blocks}{pad}) "
          f"with {params.top}, {args.mode}, link {r.link.name}; checked against the reference")
    print(f"cycles: {r.cycles} (transfer start to last output); core busy {busy} "
          f"({r.core_cycles_per_block} per block" + (", a block a segment)" if unit == "segment" else ")"))
    if args.mode == "ccm":
        print(f"two messages through the system: {r.notes[0]}")
    print(f"Fmax used: {r.fmax_mhz:g} MHz ({r.fmax_source})")
    print(f"core throughput: {r.core_mbps:.1f} Mbit/s; system throughput: {r.system_mbps:.1f} Mbit/s "
          f"({100 * r.system_mbps / r.core_mbps:.{2 if unit == 'segment' else 1}f}% of the core"
          + (f"; {'an' if args.mode == 'cfb8' else 'a'} {args.mode[3:]}-bit segment a block: at most {100 * int(args.mode[3:]) / r.block_bits:.2f}%)"
             if unit == "segment" else ")"))
    if units is not None:
        print(f"where the time went: input link not delivered {r.in_link_wait} cycles, output link "
              f"not taking {r.out_link_wait}; the tweaks' ECB run under K2, the key change, a "
              f"tweak block ahead of each data unit, and a message of its own for a unit that "
              f"steals ciphertext")
        return
    print(f"where the time went: input link not delivered {r.in_link_wait} cycles, output link "
          f"not taking {r.out_link_wait}, core starved (input FIFO empty) {r.counters['starved']}, "
          f"results blocked (output FIFO full) {r.counters['blocked']}")
