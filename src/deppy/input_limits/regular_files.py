"""Reading a small file deppy looks up by name (a credentials file, an OCI layout's
``index.json``), refusing what is not a regular file before reading a byte of it.

A FIFO would block the read until a writer comes, ``/dev/zero`` would never end it: the file is
opened without blocking (O_NONBLOCK: a FIFO opens at once), checked with ``fstat`` on what was
opened (a link is followed, so a link to ``/dev/zero`` is seen as the device it is), and read no
further than ``limit`` bytes. The kinds are named as catalog directories name them
(:func:`deppy.errors.special_file`).
"""

from __future__ import annotations

import os
import stat

from deppy.errors import InputError, special_file

_CHUNK = 1 << 20


def read_regular_file(path: str, limit: int, fix: str) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them; an InputError
    naming the path (and ``fix``) for a special file, a directory, a longer file or one that
    cannot be read. FileNotFoundError passes through: a missing file is often no error."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise InputError(path, f"cannot read it ({error.strerror})", fix) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = special_file(mode) or "a directory"
            raise InputError(path, f"is {kind}, not a file", fix)
        parts: list[bytes] = []
        size = 0
        while part := os.read(fd, _CHUNK):
            parts.append(part)
            size += len(part)
            if size > limit:
                raise InputError(path, f"is larger than {limit:,} bytes (deppy's limit)", fix)
        return b"".join(parts)
    except OSError as error:
        raise InputError(path, f"cannot read it ({error.strerror})", fix) from None
    finally:
        os.close(fd)


__all__ = ["read_regular_file"]
