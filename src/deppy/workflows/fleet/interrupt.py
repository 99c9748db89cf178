"""Ctrl-C during an embedded fleet run: the command stops the run, its workers do not.

A terminal sends SIGINT to every process of the foreground group: the command, and the dask
worker processes it started. A worker that took it died with a traceback of dask's event loop
(two to four of them above the command's own message) while the command was already shutting
the cluster down. This module is imported by the forkserver the workers are forked from
(``fanout._start_forkserver``), and only there: it makes that process ignore SIGINT before
multiprocessing records its handlers, so each forked worker restores "ignore" (asyncio then
installs no handler of its own either). The command alone handles the interrupt: it closes
the cluster, which stops the workers, and says in one line that the run was interrupted.
"""

from __future__ import annotations

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
