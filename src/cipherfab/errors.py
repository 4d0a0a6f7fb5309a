"""One error type for every refusal the user should see as a single line."""


class CipherfabError(Exception):
    """Bad input or a missing tool: the message is one line naming the problem.

    The CLI prints ``cipherfab: error: <message>`` and exits with ``exit_code``
    (2 for bad input, the default).
    """

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


class MissingTool(CipherfabError):
    """A tool cipherfab runs (Verilator, Yosys, nextpnr, ...) is not installed or does not run.
    Callers for which the tool is optional catch this one and go on without it."""
