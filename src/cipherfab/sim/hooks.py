"""The simulation layer's extension points: what a layer above provides, declared here.

GCM runs through the accelerator system, which lives in :mod:`cipherfab.host`, a layer above
this one; ``sim --mode gcm`` and ``verify --all`` need it, and may not import it.  So this
module declares each hook by name and contract (:data:`HOOKS`); the host layer provides them
(:func:`cipherfab.host.cli.provide_hooks`, called when it registers its commands) and this
layer looks them up (:func:`get`).  No attribute of this layer is replaced from above, and a
hook nobody provided is one line naming it.
"""

from __future__ import annotations

from ..errors import CipherfabError

#: name -> the contract a provider must meet
HOOKS = {
    "gcm_vectors": "fn(args, params) -> exit code: GCM vector files through the system "
                   "(sim --mode gcm; cipherfab.host.gcm_vectors.run_gcm_vectors)",
    "mode_vectors": "fn(args, params) -> exit code: OFB, CFB, CTR, CMAC, XTS and CCM vector files through the "
                    "system (sim --mode ofb|cfb|ctr|cmac|xts|ccm; cipherfab.host.mode_vectors.run_mode_vectors)",
    "gcm_checks": "a module with gcm_points(cipher, arch), key(params), state(params, entry, root) "
                  "and verify_one(params, root, seed, opt): the system's classes (GCM, CMAC, OFB, "
                  "CFB, XTS, CCM) verify --all checks (cipherfab.host.verify_gcm)",
}

_provided: dict[str, object] = {}


def provide(name: str, provider) -> None:
    """Register ``provider`` for the declared hook ``name``."""
    if name not in HOOKS:
        raise KeyError(f"no hook {name!r} is declared (hooks: {', '.join(HOOKS)})")
    _provided[name] = provider


def provided(name: str) -> bool:
    return name in _provided


def get(name: str):
    """The provider of hook ``name``; one line when the layer that provides it is not loaded."""
    if name not in _provided:
        raise CipherfabError(f"{HOOKS[name].split(':')[0].strip()} is not provided: it needs "
                             "cipherfab.host (the accelerator system), not loaded")
    return _provided[name]
