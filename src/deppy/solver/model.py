"""The solver's base types: variables, the constraint interface, and what encodes constraints.

Every other module of the solver imports from here and nothing here imports them, so imports
inside ``solver/`` point one way. A constraint never sees a concrete encoder: it builds its
literal through :class:`Gates`, which both the flat clause encoder (``cnf``) and the reference's
logic circuit (``circuit``) implement. Literals are signed ints (``-x`` is the negation of ``x``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

TYPE_CHECKING = False  # `deppy solve` pays for every import: see Frozen
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import ClassVar, Protocol
else:
    Protocol = object  # the protocols below are for the type checker; at run time, plain bases

Identifier = str


class Frozen:
    """An immutable value compared by its fields, as ``@dataclass(frozen=True, slots=True)``
    makes one: equality and hash over the fields, a repr that names them, no assignment.

    Written out because ``dataclasses`` imports ``inspect`` (with ast, dis, tokenize, re and
    enum): ~15 ms, more than the rest of a plain ``deppy solve`` after the interpreter's own
    start (tests/test_solve_startup.py). A subclass names its fields, in order, in both
    ``__slots__`` and ``__match_args__`` (as a dataclass sets it) and sets them in ``__init__``
    with ``object.__setattr__``.
    """

    __slots__ = ()
    __match_args__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Frozen)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{self.__class__.__qualname__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __getstate__(self) -> tuple[object, ...]:
        return self._values()

    def __setstate__(self, state: tuple[object, ...]) -> None:
        for name, value in zip(self.__match_args__, state, strict=True):
            object.__setattr__(self, name, value)


class Gates(Protocol):
    """What a constraint needs to build a literal that is true exactly when it holds."""

    def lit(self, identifier: Identifier) -> int: ...

    def lits(self, identifiers: Sequence[Identifier]) -> list[int]: ...

    def true(self) -> int: ...

    def or_gate(self, lits: Sequence[int]) -> int: ...

    def and_gate(self, lits: Sequence[int]) -> int: ...

    def at_most_gate(self, bound: int, lits: Sequence[int]) -> int: ...


class ClauseSink(Gates, Protocol):
    """A flat encoder: constraints may also write clauses and preferences directly."""

    def clause(self, lits: list[int]) -> None: ...

    def at_most(self, bound: int, lits: list[int]) -> None: ...

    def prefer(self, subject: int, candidates: list[int]) -> None: ...


class Constraint(ABC):
    """A rule about a subject variable. (The built-in ones are also :class:`Frozen` values.)"""

    anchor: ClassVar[bool] = False

    @abstractmethod
    def describe(self, subject: Identifier) -> str:
        """The rule in words, for the subject it applies to (used verbatim in explanations)."""

    @abstractmethod
    def reify(self, gates: Gates, subject: int) -> int:
        """A literal that is true exactly when the rule holds."""

    def encode(self, sink: ClauseSink, subject: int) -> None:
        """Clauses that hold exactly when the rule holds; types override with leaner forms.

        A rule that asks the search for a choice also records it with ``sink.prefer``.
        """
        sink.clause([self.reify(sink, subject)])

    def order(self) -> tuple[Identifier, ...]:
        """Candidates in preference order, when the rule asks the search for a choice."""
        return ()


class Variable(Frozen):
    """Something that may be selected, with the constraints that apply to it, in order.

    Constraint order matters: a variable's dependency constraints become the search's choices in
    the order given.
    """

    __slots__ = __match_args__ = ("id", "constraints")
    id: Identifier
    constraints: tuple[Constraint, ...]

    def __init__(self, id: Identifier, constraints: Iterable[Constraint] = ()) -> None:
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "constraints", tuple(constraints))


class AppliedConstraint(Frozen):
    """A constraint together with the variable it applies to: the unit an explanation cites."""

    __slots__ = __match_args__ = ("variable", "constraint")
    variable: Variable
    constraint: Constraint

    def __init__(self, variable: Variable, constraint: Constraint) -> None:
        object.__setattr__(self, "variable", variable)
        object.__setattr__(self, "constraint", constraint)

    @property
    def text(self) -> str:
        return self.constraint.describe(self.variable.id)

    def __str__(self) -> str:
        return self.text
