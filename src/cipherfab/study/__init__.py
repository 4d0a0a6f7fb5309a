"""Studies: sweeps over design points x placer seeds, with reports shaped like the papers' tables.

- :mod:`.studies` - named studies (``quick``, ...) and how to add one.
- :mod:`.runner` - :func:`run_study`, :func:`sweep` (local pool or Dask); its parts:
  :mod:`.points`, :mod:`.jobs`, :mod:`.pool`, :mod:`.display`, :mod:`.aggregate`,
  :mod:`.environment`, :mod:`.publish`, :mod:`.signals`.
- :mod:`.report`, :mod:`.plots` - report.md / report.html / PNGs from results.json.
- :mod:`.papers` - the papers' published numbers, as printed, with their devices.
- :mod:`.cli` - ``cipherfab study NAME``.
"""
