"""Studies: sweeps over design points x placer seeds, with reports shaped like the papers' tables.

- :mod:`.studies` - named studies (``quick``, ...) and how to add one.
- :mod:`.runner` - :func:`run_study`, :func:`sweep`, :func:`aggregate` (local pool or Dask).
- :mod:`.report`, :mod:`.plots` - report.md / report.html / PNGs from results.json.
- :mod:`.papers` - the papers' published numbers, as printed, with their devices.
- :mod:`.cli` - ``cipherfab study NAME``.
"""
