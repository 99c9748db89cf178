"""The exit codes every command shares: 0 done, 1 no solution (or a finding), 2 bad input."""

from __future__ import annotations

EXIT_OK = 0
EXIT_UNRESOLVABLE = 1
EXIT_INPUT_ERROR = 2
