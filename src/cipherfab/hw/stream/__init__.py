"""Buses and streams between a core and the outside: AXI4-Stream to blocks and back, an
AXI4-Lite slave, full-rate register stages on a stream, and the narrow serial I/O wrapper
of in-context builds.  Of the rest of hw/ they know only a core's declaration
(:mod:`cipherfab.hw.info`)."""
