"""cipherfab: block-cipher cores for FPGAs — generator, simulator, evaluation flow."""

__version__ = "0.1.0"
