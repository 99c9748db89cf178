"""The reference's encoding: an and-inverter graph as gini's ``logic.C`` builds it.

Why a second encoding: after a failed guess the reference learns a clause, and a learned clause is
made of the literals of the CNF the reference built — its internal gates included. The same
analysis over another encoding learns other clauses and fails other guesses
(``conformance/deppy-go-learned/README.md``). So this module reproduces gini's circuit node for
node: variable 1 is the constant, one input per problem variable in input order, then the gates of
every applied constraint in input order; identical AND gates are shared (structural hashing);
at-most constraints are gini's ``CardSort`` odd-even merge network padded to a power of two.

Literals here are signed ints like everywhere in the solver; ``CircuitCnf`` also carries them in
gini's own numbering (``2·var`` true, ``2·var+1`` false), the order in which gini sorts the inputs
of an AND gate and which the propagation engine indexes its tables by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deppy.solver.model import Identifier, Variable

TRUE = 1
FALSE = -1


def gini(lit: int) -> int:
    """A signed literal in gini's numbering."""
    return 2 * lit if lit > 0 else 1 - 2 * lit


class Circuit:
    """gini's ``logic.C``: inputs, shared AND gates, and the gates built from them."""

    def __init__(self, variables: Sequence[Variable]) -> None:
        # node 0 is unused and node 1 is the constant, as in gini
        self.fanin: list[tuple[int, int]] = [(0, 0), (0, 0)]
        self._strash: dict[tuple[int, int], int] = {}
        self.lit_of: dict[Identifier, int] = {}
        for variable in variables:
            self.lit_of[variable.id] = len(self.fanin)
            self.fanin.append((0, 0))

    # -- the Gates protocol ---------------------------------------------------------------
    def lit(self, identifier: Identifier) -> int:
        return self.lit_of[identifier]

    def lits(self, identifiers: Sequence[Identifier]) -> list[int]:
        lit_of = self.lit_of
        return [lit_of[i] for i in identifiers]

    def true(self) -> int:
        return TRUE

    def or_gate(self, lits: Sequence[int]) -> int:
        """gini's ``Ors``: a left-to-right chain of two-input ORs, starting from false."""
        result = FALSE
        for lit in lits:
            result = -self.and2(-result, -lit)
        return result

    def and_gate(self, lits: Sequence[int]) -> int:
        """gini's ``Ands``: a left-to-right chain of two-input ANDs, starting from true."""
        result = TRUE
        for lit in lits:
            result = self.and2(result, lit)
        return result

    def at_most_gate(self, bound: int, lits: Sequence[int]) -> int:
        """gini's ``CardSort(lits).Leq(bound)``; the network is built even when trivial."""
        size = 1
        while size < len(lits):
            size *= 2
        wires = [*lits, *([TRUE] * (size - len(lits)))]
        self._sort(wires, 0, size)
        if bound >= len(lits):
            return TRUE
        return -wires[len(lits) - 1 - bound]

    # -- gates ------------------------------------------------------------------------------
    def and2(self, a: int, b: int) -> int:
        """gini's ``And``: constants folded, inputs ordered, identical gates shared."""
        if a == b:
            return a
        if a == -b:
            return FALSE
        if (2 * a if a > 0 else 1 - 2 * a) > (2 * b if b > 0 else 1 - 2 * b):  # gini's order
            a, b = b, a
        if a == FALSE:
            return FALSE
        if a == TRUE:
            return b
        key = (a, b)
        node = self._strash.get(key)
        if node is None:
            node = len(self.fanin)
            self.fanin.append(key)
            self._strash[key] = node
        return node

    def _sort(self, wires: list[int], low: int, high: int) -> None:
        if high - low <= 1:
            return
        middle = low + (high - low) // 2
        self._sort(wires, low, middle)
        self._sort(wires, middle, high)
        self._merge(wires, low, high, 1)

    def _merge(self, wires: list[int], low: int, high: int, step: int) -> None:
        """Batcher's odd-even merge, in gini's recursion order (node numbering depends on it)."""
        if high <= low + step:
            return
        double = 2 * step
        if double >= high - low:
            self._compare(wires, low, low + step)
            return
        self._merge(wires, low, high, double)
        self._merge(wires, low + step, high, double)
        for i in range(low + step, high - step, double):
            self._compare(wires, i, i + step)

    def _compare(self, wires: list[int], i: int, j: int) -> None:
        first, second = wires[i], wires[j]
        wires[i] = self.and2(first, second)
        wires[j] = -self.and2(-first, -second)


@dataclass(slots=True)
class CircuitCnf:
    """The reference's CNF: clauses in gini's order and numbering, and what the search assumes.

    ``clauses`` starts with the unit clause of the constant, then three clauses per AND gate
    ``g = a ∧ b`` in node order: ``(¬g ∨ a)``, ``(¬g ∨ b)``, ``(g ∨ ¬a ∨ ¬b)``. No gate has a
    constant input or one variable twice (``and2`` folds those), so gini's ``Add`` would keep
    every gate clause as it is.
    ``constraint_lits`` are the literals of the applied constraints (each once, in input order);
    ``input_offset`` maps the flat problem's input literal ``k`` to circuit variable ``k + 1``.
    """

    num_vars: int
    clauses: list[list[int]]
    constraint_lits: list[int]
    input_offset: int = 1


def encode_circuit(variables: Sequence[Variable]) -> CircuitCnf:
    """Build the reference's circuit for already validated variables and write it as CNF."""
    circuit = Circuit(variables)
    constraint_lits: list[int] = []
    seen: set[int] = set()
    for variable in variables:
        subject = circuit.lit_of[variable.id]
        for constraint in variable.constraints:
            lit = constraint.reify(circuit, subject)
            if lit not in seen:
                seen.add(lit)
                constraint_lits.append(gini(lit))
    clauses = [[gini(TRUE)]]
    append = clauses.append
    for node, (a, b) in enumerate(circuit.fanin):
        if a == 0:
            continue
        gate = 2 * node
        first = 2 * a if a > 0 else 1 - 2 * a
        second = 2 * b if b > 0 else 1 - 2 * b
        append([gate ^ 1, first])
        append([gate ^ 1, second])
        append([gate, first ^ 1, second ^ 1])
    return CircuitCnf(len(circuit.fanin) - 1, clauses, constraint_lits)
