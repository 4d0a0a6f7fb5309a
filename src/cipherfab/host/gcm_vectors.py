"""``cipherfab sim ... --mode gcm --vectors FILE``: GCM vector files (NIST CAVP, Crypto++,
NIST's example text) through the accelerator system around a generated core (plugged into ``sim`` by :mod:`.cli`)."""

from __future__ import annotations

from ..errors import CipherfabError


def run_gcm_vectors(args, params) -> int:
    """GCM vector files through the simulated system (every file parsed first)."""
    from .mode_vectors import refuse_core_run_options
    refuse_core_run_options(args, params)
    from ..generate import declaration
    from ..vectors import exit_code, format_report
    from ..vectors.gcm import read_gcm, run_gcm_files
    info = declaration(params)
    if info.block_bits != 128 or "encrypt" not in info.directions:
        raise CipherfabError(f"gcm needs a 128-bit block cipher that encrypts; {params.top} has "
                             f"{info.block_bits}-bit blocks and {', '.join(info.directions)}s")
    for name in args.vectors:            # every file parsed before anything is built
        read_gcm(name)
    from .driver import Accelerator
    acc = Accelerator(params)

    def through_the_system(key, decrypt, iv, aad, data, tag, tag_bytes):
        r = acc.run_gcm(key, decrypt, iv, aad, data, tag, tag_bytes, seed=args.seed)
        return r.out, r.tag, r.authentic
    reports = run_gcm_files(args.vectors, through_the_system, info.key_bits, args.limit)
    print(f"{acc.params.top} in the accelerator system, GCM with the {acc.ghash} GHASH:")
    print(format_report(reports))
    return exit_code(reports)
