"""The hardware.  Here: the core contract every cipherfab core follows (:mod:`.info`,
:mod:`.export`), the blocks the cores share, and the mode engine that drives any core
(:mod:`.modes`).  In the rooms, each importing only this level and the rooms before it: the
subsystems around a core, :mod:`.masking` (two-share gates and their generators),
:mod:`.stream` (buses and streams), :mod:`.gcm` (GHASH and the GCM layer) and
:mod:`.system` (the accelerator and its registers)."""
