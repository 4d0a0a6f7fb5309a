"""GCM (NIST SP 800-38D): GF(2^128) in Python, the GHASH multipliers and units, their
algebraic proof, the GCM layer the accelerator puts around the mode engine, and GCM over
any block function in Python, the reference the system is checked against."""
