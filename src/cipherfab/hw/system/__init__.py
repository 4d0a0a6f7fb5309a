"""The accelerator system of paper 003 around any core: the accelerator (FIFOs and counters
around the mode engine and the GCM layer), its AXI4-Lite register map, and the FIFO depths
a device's block RAM can hold."""
