"""Compiling a CEL parse tree (cel-python's grammar) into Python closures for the part of CEL
that olm.constraint rules use; anything else is marked for cel-python's interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from celpy.evaluation import celstr
from lark import Token, Tree

from deppy.catalog.cel.macros import (
    Env,
    Fn,
    _exists_one_macro,
    _filter_macro,
    _logic,
    _map_macro,
    _quantifier,
)
from deppy.catalog.cel.operators import (
    _add,
    _div,
    _eq,
    _Err,
    _in,
    _index,
    _matches,
    _mod,
    _mul,
    _neg,
    _not,
    _order,
    _select,
    _semver_compare_fast,
    _size,
    _strings,
    _sub,
    _to_bool,
    _to_double,
    _to_int,
    _to_string,
)
from deppy.catalog.cel.values import (
    _BUDGET,
    _INT64_MAX,
    _INT64_MIN,
    CelCompileError,
    _size_of,
    _type_name,
    go_sprint,
)
from deppy.errors import excerpt

# --------------------------------------------------------------------------------------------------
# Compiling a parse tree into closures

Node = Tree[Token]

_TYPE_IDENTS: Final = frozenset(
    {"int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type", "dyn"}
)
_TIME_METHODS: Final = frozenset(
    {
        "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getFullYear", "getHours",
        "getMilliseconds", "getMinutes", "getMonth", "getSeconds",
    }
)  # fmt: skip
_SLOW_FUNCTIONS: Final = frozenset({"uint", "bytes", "type", "duration", "timestamp"})
_BINARY: Final[dict[str, tuple[Callable[[Any, Any], Any], str]]] = {
    "addition_sub": (_sub, "-"),
    "multiplication_mul": (_mul, "*"),
    "multiplication_div": (_div, "/"),
    "multiplication_mod": (_mod, "%"),
}
_RELATIONS: Final[dict[str, Callable[[Any, Any, list[int]], bool]]] = {
    "relation_eq": _eq,
    "relation_ne": lambda a, b, budget: not _eq(a, b, budget),
    "relation_lt": lambda a, b, _: _lt(*_order(a, b, "<")),
    "relation_le": lambda a, b, _: _le(*_order(a, b, "<=")),
    "relation_gt": lambda a, b, _: _lt(*reversed(_order(a, b, ">"))),
    "relation_ge": lambda a, b, _: _le(*reversed(_order(a, b, ">="))),
    "relation_in": _in,
}  # each gets the evaluation's budget: ==, != and in walk lists and maps


def _lt(a: Any, b: Any) -> bool:
    return bool(a < b)


def _le(a: Any, b: Any) -> bool:
    return bool(a <= b)


class _Compiler:
    """One pass over the tree: closures for the fast path, plus cel-go's static checks.

    Static checks run on the whole rule even when part of it needs the slow path: undeclared
    names, macro shapes, and the rule's result type (cel-go refuses anything but bool).
    """

    def __init__(self) -> None:
        self.scope: list[str] = ["properties"]
        self.slow_reason: str | None = None

    def compile(self, node: Node | Token) -> tuple[Fn, str]:
        if isinstance(node, Token):  # pragma: no cover - the grammar wraps every token
            raise CelCompileError(f"unexpected token {node!r}")
        handler = getattr(self, "_n_" + str(node.data), None)
        if handler is None:
            return self._slow(f"{node.data} expressions")
        result: tuple[Fn, str] = handler(node)
        return result

    def _slow(self, reason: str, kind: str = "dyn") -> tuple[Fn, str]:
        self.slow_reason = self.slow_reason or reason
        return _unreachable, kind

    # -- structure ---------------------------------------------------------------------------------

    def _n_expr(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        (cond, _), (then, t1), (other, t2) = (self.compile(c) for c in n.children)

        def ternary(env: Env) -> Any:
            c = cond(env)
            if c is True:
                return then(env)
            if c is False:
                return other(env)
            raise _Err(f"no such overload: {_type_name(c)} ? _ : _")

        return ternary, t1 if t1 == t2 else "dyn"

    def _n_conditionalor(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        return _logic(self.compile(n.children[0])[0], self.compile(n.children[1])[0], True), "bool"

    def _n_conditionaland(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        return _logic(self.compile(n.children[0])[0], self.compile(n.children[1])[0], False), "bool"

    def _n_relation(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        op_node, right_node = n.children
        assert isinstance(op_node, Tree)
        test = _RELATIONS[str(op_node.data)]
        left, _ = self.compile(op_node.children[0])
        right, _ = self.compile(right_node)
        return (lambda env: test(left(env), right(env), env[_BUDGET])), "bool"

    def _n_addition(self, n: Node) -> tuple[Fn, str]:
        return self._arithmetic(n)

    def _n_multiplication(self, n: Node) -> tuple[Fn, str]:
        return self._arithmetic(n)

    def _arithmetic(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        op_node, right_node = n.children
        assert isinstance(op_node, Tree)
        left, t1 = self.compile(op_node.children[0])
        right, t2 = self.compile(right_node)
        kind = t1 if t1 == t2 else "dyn"
        if op_node.data == "addition_add":
            return (lambda env: _add(left(env), right(env), env[_BUDGET])), kind
        apply, _ = _BINARY[str(op_node.data)]
        return (lambda env: apply(left(env), right(env))), kind

    def _n_unary(self, n: Node) -> tuple[Fn, str]:
        if len(n.children) == 1:
            return self.compile(n.children[0])
        op_node, operand_node = n.children
        assert isinstance(op_node, Tree)
        operand, kind = self.compile(operand_node)
        if op_node.data == "unary_not":
            return (lambda env: _not(operand(env))), "bool"
        return (lambda env: _neg(operand(env))), kind

    def _n_member(self, n: Node) -> tuple[Fn, str]:
        return self.compile(n.children[0])

    _n_primary = _n_member

    def _n_paren_expr(self, n: Node) -> tuple[Fn, str]:
        return self.compile(n.children[0])

    # -- leaves ------------------------------------------------------------------------------------

    def _n_literal(self, n: Node) -> tuple[Fn, str]:
        token = n.children[0]
        assert isinstance(token, Token)
        kind, text = token.type, str(token.value)
        value: Any
        if kind == "INT_LIT":
            body = text.lstrip("-")
            if len(body) > 20:  # int64 has 19 digits; int() of thousands of digits is refused
                raise CelCompileError(f"integer literal {excerpt(text)} does not fit in int64")
            value = int(body[2:], 16) if body[:2] in ("0x", "0X") else int(body)
            value = -value if text.startswith("-") else value
            if not _INT64_MIN <= value <= _INT64_MAX:
                raise CelCompileError(f"integer literal {text} does not fit in int64")
            return _const(value), "int"
        if kind == "FLOAT_LIT":
            return _const(float(text)), "double"
        if kind in ("STRING_LIT", "MLSTRING_LIT"):
            return _const(str(celstr(token))), "string"
        if kind == "BOOL_LIT":
            return _const(text == "true"), "bool"
        if kind == "NULL_LIT":
            return _const(None), "null_type"
        return self._slow(f"{kind} literals", "uint" if kind == "UINT_LIT" else "bytes")

    def _n_ident(self, n: Node) -> tuple[Fn, str]:
        name = str(n.children[0])
        if name in self.scope:
            return (lambda env: env[name]), ("list" if name == "properties" else "dyn")
        if name in _TYPE_IDENTS:
            return self._slow("type values", "type")
        raise CelCompileError(f"undeclared reference to '{name}'")

    def _n_list_lit(self, n: Node) -> tuple[Fn, str]:
        items = self._args(n.children[0]) if n.children else []
        fns = [self.compile(c)[0] for c in items]
        return (lambda env: [f(env) for f in fns]), "list"

    def _n_map_lit(self, n: Node) -> tuple[Fn, str]:
        items = self._args(n.children[0]) if n.children else []
        fns = [self.compile(c)[0] for c in items]
        pairs = list(zip(fns[::2], fns[1::2], strict=True))

        def build(env: Env) -> dict[Any, Any]:
            out: dict[Any, Any] = {}
            for k, v in pairs:
                key = k(env)
                if type(key) not in (str, int, bool):
                    raise _Err(f"unsupported map key type: {_type_name(key)}")
                if any(type(key) is type(o) and key == o for o in out):
                    raise _Err(f"repeated key: {go_sprint(key)}")
                out[key] = v(env)
            return out

        return build, "map"

    def _n_member_object(self, n: Node) -> tuple[Fn, str]:
        raise CelCompileError("message construction needs a declared type; none is declared")

    def _n_dot_ident(self, n: Node) -> tuple[Fn, str]:
        name = str(n.children[0])
        if name != "properties":
            raise CelCompileError(f"undeclared reference to '.{name}'")
        return (lambda env: env["properties"]), "list"

    def _n_dot_ident_arg(self, n: Node) -> tuple[Fn, str]:
        return self._call(
            str(n.children[0]), self._args(n.children[1]) if len(n.children) > 1 else []
        )

    # -- selection, calls, macros ------------------------------------------------------------------

    def _n_member_dot(self, n: Node) -> tuple[Fn, str]:
        target, _ = self.compile(n.children[0])
        field = str(n.children[1])
        return (lambda env: _select(target(env), field)), "dyn"

    def _n_member_index(self, n: Node) -> tuple[Fn, str]:
        target, _ = self.compile(n.children[0])
        key, _ = self.compile(n.children[1])
        return (lambda env: _index(target(env), key(env))), "dyn"

    def _n_ident_arg(self, n: Node) -> tuple[Fn, str]:
        name = str(n.children[0])
        args = self._args(n.children[1]) if len(n.children) > 1 else []
        if name == "has":
            return self._has(args)
        return self._call(name, args)

    def _n_member_dot_arg(self, n: Node) -> tuple[Fn, str]:
        target_node, name_token = n.children[0], n.children[1]
        name = str(name_token)
        args = self._args(n.children[2]) if len(n.children) > 2 else []
        if name in ("all", "exists", "exists_one", "map", "filter"):
            return self._macro(name, target_node, args)
        target, _ = self.compile(target_node)
        fns = [self.compile(a)[0] for a in args]
        if name == "size" and not fns:
            return (lambda env: _size(target(env))), "int"
        if name in ("contains", "startsWith", "endsWith", "matches") and len(fns) == 1:
            arg = fns[0]
            test = {
                "contains": lambda a, b: _contains(*_strings(a, b, "contains")),
                "startsWith": lambda a, b: str.startswith(*_strings(a, b, "startsWith")),
                "endsWith": lambda a, b: str.endswith(*_strings(a, b, "endsWith")),
                "matches": _matches,
            }[name]
            return (lambda env: test(target(env), arg(env))), "bool"
        if name in _TIME_METHODS:
            return self._slow("timestamp and duration methods", "int")
        if name in ("size", "contains", "startsWith", "endsWith", "matches"):
            raise CelCompileError(
                f"found no matching overload for '{name}' with {len(fns)} argument(s)"
            )
        raise CelCompileError(f"undeclared reference to '{name}'")

    def _call(self, name: str, args: list[Node | Token]) -> tuple[Fn, str]:
        fns = [self.compile(a)[0] for a in args]
        unary: dict[str, tuple[Callable[[Any], Any], str]] = {
            "size": (_size, "int"),
            "int": (_to_int, "int"),
            "double": (_to_double, "double"),
            "string": (_to_string, "string"),
            "bool": (_to_bool, "bool"),
            "dyn": (lambda v: v, "dyn"),
        }
        if name in unary and len(fns) == 1:
            apply, kind = unary[name]
            (arg,) = fns
            return (lambda env: apply(arg(env))), kind
        if name in ("semver_compare", "matches") and len(fns) == 2:
            a, b = fns
            fn2 = _semver_compare_fast if name == "semver_compare" else _matches
            return (lambda env: fn2(a(env), b(env))), (
                "int" if name == "semver_compare" else "bool"
            )
        if name in _SLOW_FUNCTIONS and len(fns) == 1:
            return self._slow(f"{name}()", "type" if name == "type" else name)
        if name in unary or name in _SLOW_FUNCTIONS or name in ("semver_compare", "matches"):
            raise CelCompileError(
                f"found no matching overload for '{name}' with {len(fns)} argument(s)"
            )
        raise CelCompileError(f"undeclared reference to '{name}'")

    def _has(self, args: list[Node | Token]) -> tuple[Fn, str]:
        select = _single_child_chain(args[0], "member_dot") if len(args) == 1 else None
        if select is None:
            raise CelCompileError("invalid argument to has() macro: write has(x.field)")
        target, _ = self.compile(select.children[0])
        field = str(select.children[1])

        def has(env: Env) -> bool:
            obj = target(env)
            if isinstance(obj, dict):
                return field in obj
            raise _Err(f"invalid type for field selection: {_type_name(obj)}")

        return has, "bool"

    def _macro(
        self, name: str, target_node: Node | Token, args: list[Node | Token]
    ) -> tuple[Fn, str]:
        arity = (2, 3) if name == "map" else (2,)
        if len(args) not in arity:
            raise CelCompileError(f"{name}() takes {' or '.join(map(str, arity))} arguments")
        var_node = _single_child_chain(args[0], "ident")
        if var_node is None:
            raise CelCompileError(f"{name}(): the first argument must be a simple name")
        var = str(var_node.children[0])
        target, _ = self.compile(target_node)
        self.scope.append(var)
        try:
            body = [self.compile(a)[0] for a in args[1:]]
        finally:
            self.scope.pop()
        weight = 1 + sum(_size_of(a) for a in args[1:])
        if name == "map":
            return _map_macro(target, var, body, weight), "list"
        if name == "filter":
            return _filter_macro(target, var, body[0], weight), "list"
        if name == "exists_one":
            return _exists_one_macro(target, var, body[0], weight), "bool"
        return _quantifier(target, var, body[0], name == "exists", weight), "bool"

    def _args(self, node: Node | Token) -> list[Node | Token]:
        assert isinstance(node, Tree)
        return list(node.children)


def _contains(text: str, part: str) -> bool:
    return part in text


def _unreachable(env: Env) -> Any:  # pragma: no cover - never run: the rule goes to cel-python
    raise AssertionError("slow-path node evaluated on the fast path")


def _const(value: Any) -> Fn:
    return lambda env: value


def _single_child_chain(node: Node | Token, wanted: str) -> Node | None:
    """The ``wanted`` node at the bottom of a chain of one-child nodes (expr→…→ident)."""
    while isinstance(node, Tree):
        if node.data == wanted:
            return node
        if len(node.children) != 1:
            return None
        node = node.children[0]
    return None
