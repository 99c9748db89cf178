"""Reading a file deppy is given or looks up by name (a request, a trace, a credentials file, an
OCI layout's ``index.json``), refusing what is not a regular file before reading a byte of it.

A FIFO would block the read until a writer comes, ``/dev/zero`` would never end it: the file is
opened without blocking (O_NONBLOCK: a FIFO opens at once), checked with ``fstat`` on what was
opened (a link is followed, so a link to ``/dev/zero`` is seen as the device it is), and read no
further than ``limit`` bytes when one is given. The kinds are named as catalog directories name
them (:func:`deppy.errors.not_a_file`).
"""

from __future__ import annotations

import os
import stat

from deppy.errors import InputError, not_a_file


def read_regular_file(path: str, fix: str, *, limit: int | None = None, what: str = "it") -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``); an InputError naming the
    path (``what`` it is, and ``fix``) for a special file, a directory, a longer file or one that
    cannot be read. FileNotFoundError passes through: a missing file is often no error."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise InputError(path, f"cannot read {what} ({error.strerror})", fix) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(path, not_a_file(mode), fix)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as file:  # plain open: pathlib costs start-up
            data = file.read() if limit is None else file.read(limit + 1)
    except OSError as error:
        raise InputError(path, f"cannot read {what} ({error.strerror})", fix) from None
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise InputError(path, f"is larger than {limit:,} bytes (deppy's limit)", fix)
    return data


__all__ = ["read_regular_file"]
