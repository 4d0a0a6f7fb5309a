"""``cipherfab sim``: run vector files or random differential runs on a simulated core."""

from __future__ import annotations

from ..argtypes import clock_ratio, count, count_upto, probability
from ..errors import CipherfabError
from ..registry import add_core_arguments, params_from_args


def random_blocks(text: str) -> int:
    """--random N: a count up to the engine's limit; 1e6 and 1_000_000 both read."""
    from .engine import RANDOM_LIMIT
    return count_upto(RANDOM_LIMIT)(text)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sim", help="run vector files or a random differential run on the simulated core",
        description="Compile the generated core with Verilator and run official vector files "
                    "(NIST .rsp, AES-submission, NESSIE) or random blocks checked against "
                    "the cipher's reference model, with optional random valid/ready backpressure. "
                    "An external core that follows the stream convention runs the same way: "
                    "--verilog FILE... --top NAME --info JSON (its declaration, as in a "
                    "generated core's sidecar).")
    add_core_arguments(p, cipher_required=False)
    ext = p.add_argument_group("external core")
    ext.add_argument("--verilog", nargs="+", metavar="FILE", help="Verilog files of an external core")
    ext.add_argument("--top", metavar="NAME", help="its top module")
    ext.add_argument("--info", metavar="JSON",
                     help="its declaration: cipher, block_bits, key_bits, key_interface, directions, "
                          "latency, cycles per block, ... (the generated cores' .json sidecar format)")
    ext.add_argument("--include-dir", action="append", metavar="DIR",
                     help="folder searched for `include files (repeatable)")
    p.add_argument("--mode", choices=("gcm", "ofb", "cfb", "cfb8", "cfb1", "ctr", "cmac", "xts", "ccm"),
                   help="gcm: run GCM vector files (--vectors: NIST CAVP .rsp, Crypto++ gcm.txt, "
                        "NIST's AES_GCM.txt example) through the accelerator system "
                        "around the core (its GCM mode engine), each record encrypted, decrypted, "
                        "and decrypted with a flipped tag bit; ofb, cfb, cfb8, cfb1: NIST CAVP OFB and CFB "
                        "(cfb: whole-block segments, CFB128 for AES; cfb8, cfb1: 8- and 1-bit "
                        "segments) KAT, MMT and MCT files through the system, each "
                        "record one message (a Monte-Carlo record's inner loop a segment at a "
                        "time); ctr: NIST ACVP-AES-CTR JSON, each test one message "
                        "from its initial counter block; cmac: CMAC files (NIST CAVP "
                        "CMACGen/CMACVer .rsp, cryptography-vectors' SP 800-38B examples, "
                        "Wycheproof JSON), each record a tag made or checked; xts: XTS files (NIST "
                        "CAVP XTSGenAES .rsp, ACVP JSON, Wycheproof JSON), each record one data "
                        "unit (ACVP 2.0: or several; the key is K1 then K2); ccm: CCM files (NIST "
                        "CAVP VADT, VNT, VPT, VTT, DVPT .rsp, ACVP JSON, Wycheproof JSON), each "
                        "record encrypted and decrypted, or its tag checked; OFB and CFB128 also "
                        "as ACVP JSON")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--vectors", nargs="+", metavar="FILE",
                      help="vector files to run (NIST CAVP .rsp, ACVP JSON, AES submission, NESSIE, "
                           "Crypto++, NIST TDES examples); cryptography-vectors:PATH names files (a "
                           "glob) in the installed cryptography-vectors package")
    what.add_argument("--random", type=random_blocks, metavar="N",
                      help="N random blocks under random keys (1 to 1e12; 1e6 is fine)")
    p.add_argument("--limit", type=count, metavar="N", help="run only the first N records of each file")
    p.add_argument("--seed", type=int, default=1, help="seed for data and backpressure (default 1)")
    p.add_argument("--valid-prob", type=probability, default=1.0,
                   help="probability the source offers a block in a cycle (default 1)")
    p.add_argument("--ready-prob", type=probability, default=1.0,
                   help="probability the sink takes a result in a cycle (default 1)")
    p.add_argument("--blocks-per-key", type=count, default=1000,
                   help="mean blocks between key changes in --random (default 1000)")
    p.add_argument("--key-clock-period", type=clock_ratio, default=1.0, metavar="P",
                   help="for a core with a key clock (key_clk, e.g. --key-clock separate): its "
                        "period in clk periods, 0.05 to 20 (default 1)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..userfiles import input_file
    from ..vectors.installed import resolve
    from .engine import HardwareEngine, random_run
    if args.vectors:                     # cryptography-vectors:PATH, inside the installed package
        args.vectors = resolve(args.vectors)
    for name in args.vectors or ():      # a device, FIFO or huge file: refused before any work
        input_file(name, "vectors", "--vectors")
    core = _core(args)
    if args.mode == "gcm":
        return _run_gcm(args, core)
    if args.mode in ("ofb", "cfb", "cfb8", "cfb1", "ctr", "cmac", "xts", "ccm"):
        return _run_mode(args, core)
    reversed_ = False
    if args.vectors and args.cipher:  # a malformed file is refused before the core is compiled
        from ..registry import get_cipher
        from ..vectors import cipher_named, cipher_names, parse_file
        from ..vectors.runner import refuse_other_cipher
        cipher = get_cipher(args.cipher)
        reversed_ = cipher.submission_byte_reversed
        for name in args.vectors:   # another cipher's file is named as such, before its blocks
            refuse_other_cipher(str(name), cipher_named(name), cipher_names(cipher), cipher.name)
        for name in args.vectors:
            parse_file(name, cipher.block_bits // 8, reversed_)
    engine = HardwareEngine(core, seed=args.seed, in_valid_prob=args.valid_prob,
                            out_ready_prob=args.ready_prob, key_period=args.key_clock_period)
    if args.vectors:
        from ..vectors import exit_code, format_report, run_files
        # records of other key sizes (submission files hold all three) are skipped and counted
        reports = run_files(args.vectors, engine, limit=args.limit, byte_reversed=reversed_,
                            other_key_sizes="skip")
        print(format_report(reports))
        return exit_code(reports)
    r = random_run(engine, args.random, seed=args.seed, mean_blocks_per_key=args.blocks_per_key,
                   in_valid_prob=args.valid_prob, out_ready_prob=args.ready_prob,
                   progress=_Progress(args.random))
    print(f"{engine.top}: {r.blocks} blocks under {r.keys} keys, {r.cycles} cycles, "
          f"{r.seconds:.2f} s simulated at {r.blocks_per_second:,.0f} blocks/s "
          f"({r.blocks_per_second * 60:,.0f} blocks/min, {r.cycles / r.seconds:,.0f} cycles/s) "
          f"on {_machine()}")
    clock = (f" with key_clk at {args.key_clock_period:g} clk periods" if engine.clock_options else "")
    print(f"latencies seen: {sorted(r.latencies)} cycles (core states {engine.info.latency}); "
          f"key-to-block: {sorted(r.key_to_block)} cycles{clock}")
    if r.first_mismatch:
        print(f"first mismatch: {r.first_mismatch}")
    print(f"{r.blocks - r.mismatches} passed, {r.mismatches} failed")
    if r.mismatches:
        return 1
    if args.ready_prob == 1.0 and r.latencies != {engine.info.latency}:
        raise CipherfabError(f"latency {sorted(r.latencies)} differs from the stated {engine.info.latency}",
                             exit_code=1)
    return 0


def _run_gcm(args, params) -> int:
    if not args.vectors:
        raise CipherfabError("--mode gcm runs --vectors files (NIST CAVP GCM .rsp, Crypto++ "
                             "gcm.txt, NIST's AES_GCM.txt)")
    from . import hooks
    if not hooks.provided("gcm_vectors"):
        raise CipherfabError("--mode gcm needs cipherfab.host (the accelerator system), not loaded")
    return hooks.get("gcm_vectors")(args, params)


def _run_mode(args, params) -> int:
    if not args.vectors:
        files = {"ofb": "NIST CAVP OFB .rsp", "cfb": "NIST CAVP CFB128 .rsp",
                 "cfb8": "NIST CAVP CFB8 .rsp", "cfb1": "NIST CAVP CFB1 .rsp",
                 "ctr": "NIST ACVP-AES-CTR JSON",
                 "cmac": "CMAC: NIST CAVP .rsp, SP 800-38B examples, Wycheproof JSON",
                 "xts": "NIST CAVP XTSGenAES .rsp, ACVP JSON, Wycheproof JSON",
                 "ccm": "NIST CAVP VADT, VNT, VPT, VTT, DVPT .rsp, ACVP JSON, Wycheproof JSON"}[args.mode]
        raise CipherfabError(f"--mode {args.mode} runs --vectors files ({files})")
    from . import hooks
    if not hooks.provided("mode_vectors"):
        raise CipherfabError(f"--mode {args.mode} needs cipherfab.host (the accelerator system), not loaded")
    return hooks.get("mode_vectors")(args, params)


def _core(args):
    """The generated point the core options name, or the external core --verilog names."""
    from ..registry import given_core_options
    external = [o for o in ("verilog", "top", "info", "include_dir") if getattr(args, o)]
    if not external:
        if not args.cipher:
            raise CipherfabError("nothing to simulate: give CIPHER (e.g. aes) or "
                                 "--verilog FILE... --top NAME --info JSON")
        return params_from_args(args)
    if args.cipher or given_core_options(args):
        what = args.cipher or given_core_options(args)[0]
        raise CipherfabError(f"{what} names a generated core; an external core is described by --info")
    missing = [f"--{o}" for o in ("verilog", "top", "info") if not getattr(args, o)]
    if missing:
        raise CipherfabError(f"an external core needs --verilog FILE... --top NAME --info JSON "
                             f"(missing {', '.join(missing)})")
    from ..verilog_files import read_verilog
    from ..hw.info import load_info
    from .engine import ExternalCore
    from ..userfiles import input_file
    info = load_info(input_file(args.info, "json", "--info"))
    text, _ = read_verilog(args.verilog, args.include_dir or ())
    return ExternalCore(text, args.top, info)


class _Progress:
    """Progress of a long random run on stderr: a line every 10 s (rewritten in place on a
    terminal), nothing for a run that ends sooner."""

    def __init__(self, total: int, every: float = 10.0):
        import sys
        import time
        self.total, self.every, self.t0 = total, every, time.monotonic()
        self.next, self.shown, self.tty = self.t0 + every, False, sys.stderr.isatty()

    def __call__(self, run) -> None:
        import sys
        import time
        now = time.monotonic()
        if run.blocks >= self.total:
            if self.shown and self.tty:
                print(file=sys.stderr)                 # end the line rewritten in place
            return
        if now < self.next:
            return
        self.next, self.shown = now + self.every, True
        line = (f"random: {run.blocks:,}/{self.total:,} blocks ({100 * run.blocks / self.total:.0f}%), "
                f"{run.mismatches} failed, {now - self.t0:.0f} s")
        print("\r" + line if self.tty else line, end="" if self.tty else "\n", file=sys.stderr, flush=True)


def _machine() -> str:
    """CPU model and core count, so a speed figure says where it was measured."""
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), model)
    except OSError:
        pass
    import os
    return f"{model}, {os.cpu_count()} cores"
