"""The data of an explanation: what was asked, what clashes, and what would make it work."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Cause:
    """One reason in the chain, in the domain's words; ``data`` holds the facts as JSON values."""

    kind: str
    text: str
    data: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    short: str = field(default="", compare=False)  # the same on one line of a screen, if shorter
    # Says nothing the summary does not (the requirement matches just the version it names):
    # left off a one-screen explanation, kept in the long form and the data.
    restates: bool = field(default=False, compare=False)
    # How much the cause tells beside the others: a full screen drops the lowest first (a
    # requirement's list of candidates before the clash that rules them out).
    rank: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A way out: a change to the request, as data, and the same change in words.

    ``change`` is the domain's description of the edit as JSON values (``{"kind": ...}``), so a
    program (a web page's button, a controller) can apply it; the domain re-resolves the changed
    request before showing a suggestion, except for advice no request change can express (such
    as adding a catalog deppy does not have), which says so in its ``kind``.
    """

    text: str
    change: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    short: str = field(default="", compare=False)  # the same in fewer words, if shorter
    # Keeps what was asked (an OLM v1 way out that leaves the version range as written): the
    # text forms show these first; ``change`` lists (JSON) keep the domain's order.
    keeps_asked: bool = field(default=False, compare=False)


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why no answer exists.

    ``roots`` are the requests at the root of the clash, ``causes`` the facts that together make
    it impossible (each one needed: they come from a minimal unsatisfiable core),
    ``suggestions`` ways out, and ``constraints`` the solver-level texts of that core. ``also``
    lists further facts that would block the same answer once the causes are fixed (e.g. a second
    missing dependency of the same bundle): not needed for the clash, but worth knowing.
    """

    summary: str
    roots: tuple[str, ...]
    causes: tuple[Cause, ...]
    suggestions: tuple[Suggestion, ...]
    constraints: tuple[str, ...] = ()
    also: tuple[Cause, ...] = ()
    short_summary: str = ""  # the summary in fewer words, for a screen too narrow for it
