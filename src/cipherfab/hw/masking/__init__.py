"""Masking on two shares: circuits of two-input gates made first-order glitch-robust
(HPC2 gadgets, pipelined), and the Trivium generators that give the masks."""
