"""Errors a user can cause, shared by every layer.

Every front door (CLI, HTTP) turns a :class:`DeppyError` into one line and exit code 2; anything
else is a bug. Keeping the type at the bottom of the import graph lets the solver, the loaders and
the OLM domain raise the same family without importing each other.
"""

from __future__ import annotations


class DeppyError(Exception):
    """A problem in the user's input: printed as one line, never with a traceback (exit 2)."""


class InputError(DeppyError):
    """Bad input at a known place: ``where`` names the file/object/field, ``fix`` what to do."""

    def __init__(self, where: str, what: str, fix: str | None = None) -> None:
        self.where = where
        self.what = what
        self.fix = fix
        message = f"{where}: {what}" if where else what
        if fix:
            message = f"{message}; {fix}"
        super().__init__(message)
