"""The orchestrator's one error type: a message for the user, no traceback."""


class TestbedError(RuntimeError):
    pass
