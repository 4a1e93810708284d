"""A cat file compiled to an hrf Model: the same model IR the Python DSL
compiles to, so the core cannot tell which language a model came from.

The names a cat file finds without defining them are herd's built-ins for
its C, OpenCL and PTX front ends, mapped onto hrf's events (`builtins`).
Where hrf's events differ from herd's, the difference is the same as for
hrf's own models (docs/readings.md): above all, an RMW is a read and a
write linked by `rmw`, where herd's C and OpenCL front ends have one
event; a file written for those is read over hrf's events in classes
(`SingleEventRmw`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import dsl
from ..dsl import Model, Rel, Set
from ..errors import DefinitionError, InvalidArgument, UnsupportedFeature
from . import tree as S
from .builtins import LAZY, READINGS, builtins_for, lazy_builtin
from .single_rmw import SingleEventRmw, inside
from .syntax import parse
from .values import EMPTY, Builtin, Empty, SetOrRel

# The deepest a cat file's includes and calls of its functions and
# procedures nest: herd's models go a few levels; each level recurses here.
MAX_INCLUDES = 50
MAX_CALLS = 60

# herd 2015's selections, relations it also applies to a relation to
# intersect with it (its modelParser: `select(exp)`)
HERD2015_SELECTS = frozenset({"ext", "int", "MM", "MR", "MW", "WM", "WW", "WR", "RM", "RW", "RR"})


# hrf's own files standing in for the includes herd's models take from
# herd's library (c11_cos.cat, c11_los.cat), searched after every other folder.
HERD_COMPAT = Path(__file__).resolve().parent.parent / "corpus" / "cat" / "herd-compat"
# The cat files shipped with hrf (litmus/cat): all that a confined model
# (cat text from a browser, `load_text(confined=True)`) may include.
SHIPPED_CAT = HERD_COMPAT.parent


@dataclass
class Closure:
    params: tuple[str | None, ...]
    tuple_params: bool
    body: S.Exp
    env: dict
    name: str


@dataclass
class ProcedureV:
    params: tuple[str | None, ...]
    body: tuple[S.Ins, ...]
    env: dict


class CatCompiler:
    def __init__(
        self,
        path: str | None,
        text: str,
        catdir: list[str],
        builtins: dict,
        variants=(),
        single_rmw: bool = False,
        confined: bool = False,
    ):
        self.path, self.text = path, text
        self.catdir = catdir
        # includes only of hrf's shipped cat files, by plain name (text from
        # someone who may not read this machine's files: `hrf serve`)
        self.confined = confined
        self.variants = frozenset(variants)
        # herd's single-event RMWs (SingleEventRmw): on when asked; whether
        # the file is written for them is found out as it is read
        self.single = SingleEventRmw() if single_rmw else None
        self.single_events_used = False
        env = dict(builtins)
        rmw = env.get("rmw")
        if isinstance(rmw, SetOrRel):
            env["rmw"] = SetOrRel(rmw.as_set, rmw.as_rel, on_set=self._rmw_taken_as_set)
        self.env: dict[str, Any] = self.single.builtins(env) if self.single else env
        self.model: Model | None = None
        self.lazy: dict[str, Rel] = {}  # the LAZY builtins the file used
        self.tests = 0
        self.including: list[str] = []
        self.calls = 0  # function and procedure calls in progress (MAX_CALLS)

    def _rmw_taken_as_set(self) -> None:
        self.single_events_used = True

    def ident(self, s: Set) -> Rel:
        """The identity on a set (herd's `[S]`, and a set where a relation is wanted)."""
        return self.single.ident(s) if self.single else dsl.I(s)

    @contextlib.contextmanager
    def call(self, node, what: str) -> Iterator[None]:
        """A call of a cat function or procedure, counted: past MAX_CALLS
        calls in progress (one that calls itself without end: herd would
        not stop) it is a located error."""
        if self.calls >= MAX_CALLS:
            raise self.fail(
                f"calls nested more than {MAX_CALLS} deep at the {what} (does it call itself without end?)", node
            )
        self.calls += 1
        try:
            yield
        finally:
            self.calls -= 1

    # ------------------------------------------------------------ errors
    def where(self, node) -> tuple[str | None, int, int]:
        return (getattr(node, "_path", None) or self.path, node.line, node.col)

    def fail(self, msg: str, node, path: str | None = None) -> DefinitionError:
        path = path or self.current
        lines = self.texts.get(path, "").splitlines()
        return DefinitionError.at(f"cat: {msg}", path, lines, node.line or None, node.col or None)

    def unsupported(self, what: str, node) -> UnsupportedFeature:
        return UnsupportedFeature(f"cat: {what} has no meaning in hrf yet", self.current, node.line or None)

    # ------------------------------------------------------------ files
    def compile(self, cat: S.CatFile) -> Model:
        self.current = cat.path
        self.texts = {cat.path: self.text}
        name = Path(cat.path).name if cat.path else (cat.title or "cat")
        doc = f"{cat.title or name}, read from {cat.path or 'cat text'} (herd's cat language)"
        # hrf's own model options (herd has none for these): whether reads may
        # guess values out of thin air (on unless `withoutthinair`: hrf does
        # not inspect a cat model's axioms), and whether a failing
        # compare-exchange writes back what it read (C11's; on unless
        # `withoutcaswriteback`)
        self.model = Model(
            name,
            doc=doc,
            thin_air="withoutthinair" not in cat.options,
            cas_writeback=(
                False if "withoutcaswriteback" in cat.options else True if "withcaswriteback" in cat.options else None
            ),
        )
        if "withsc" in cat.options:
            # herd 2015: S, a total order of the SC events, enumerated; here a witness order
            from ..models.common import SC

            # herd 2015 binds S to the order's immediate successors (order_to_succ_rel)
            total = self.model.total_order("S", self.single.representatives(SC) if self.single else SC)
            succ = total - (total >> total)
            self.env["S"] = self.single.order(succ) if self.single else succ
        self.instructions(cat.body, self.env)
        return self.model

    def include(self, ins: S.Include, env: dict) -> None:
        if ins.file in ("stdlib.cat", "stdlib"):
            return  # herd's standard library: hrf has the names it defines built in
        if self.confined and (Path(ins.file).name != ins.file or ins.file.startswith(".")):
            raise self.fail(
                f"include {ins.file!r} refused: this model may include only hrf's shipped cat files, by name "
                f"({', '.join(sorted(p.name for p in SHIPPED_CAT.rglob('*.cat')))})",
                ins,
            )
        found = self.find(ins.file)
        if found is None:
            if self.confined:
                raise self.fail(f"cannot find {ins.file!r} among hrf's shipped cat files", ins)
            where = ", ".join([os.path.dirname(self.current or ".") or "."] + self.catdir)
            raise self.fail(f"cannot find {ins.file!r} to include (looked in {where}; add folders with --catdir)", ins)
        real = str(found.resolve())  # `sub/../a.cat` is a.cat: a cycle however it is spelled
        if real in self.including or (self.path and real == str(Path(self.path).resolve())):
            raise self.fail(f"{ins.file!r} includes itself (through {' -> '.join(self.including) or 'itself'})", ins)
        if len(self.including) >= MAX_INCLUDES:
            raise self.fail(f"includes nested more than {MAX_INCLUDES} deep", ins)
        if (
            not self.confined
            and found.parent == HERD_COMPAT
            and all(Path(d).resolve() != HERD_COMPAT for d in self.catdir)
        ):
            import warnings

            from ..errors import StandInWarning

            warnings.warn(
                StandInWarning(
                    f"{self.current or 'the model'} includes {ins.file!r}, which is neither beside it nor in "
                    f"--catdir: hrf reads its own stand-in for that file of herd's library ({found})"
                ),
                stacklevel=2,
            )
        text = _read_cat(found, lambda msg: self.fail(msg, ins))
        cat = parse(text, str(found))
        outer = self.current
        self.including.append(real)
        self.current = str(found)
        self.texts[str(found)] = text
        try:
            self.instructions(cat.body, env)
        finally:
            self.current = outer
            self.including.pop()

    def find(self, file: str) -> Path | None:
        here = Path(self.current).parent if self.current else Path(".")
        # last: hrf's own stand-ins for files herd's models include from
        # herd's library (litmus/cat/herd-compat), where none is given
        folders = [SHIPPED_CAT] if self.confined else [here, *map(Path, self.catdir)]
        for folder in [*folders, HERD_COMPAT]:
            p = folder / file
            if p.is_file():
                return p
        return None

    # ------------------------------------------------------------ instructions
    def instructions(self, body, env: dict) -> None:
        for ins in body:
            self.instruction(ins, env)

    def instruction(self, ins: S.Ins, env: dict) -> None:
        assert self.model is not None
        if isinstance(ins, S.Let):
            if ins.rec:
                self.rec_functions(ins.bindings, env, ins)
                return
            for names, e in ins.bindings:
                self.bind(names, self.eval(e, env), env, ins)
        elif isinstance(ins, S.Include):
            self.include(ins, env)
        elif isinstance(ins, S.Test):
            self.test(ins, env)
        elif isinstance(ins, S.Show):
            if ins.exp is not None and ins.as_name is not None:
                v = self.eval(ins.exp, env)
                if isinstance(v, Rel):
                    self.model.show(ins.as_name, v)
            # `show name` and `unshow` only choose what herd draws
        elif isinstance(ins, S.Procedure):
            env[ins.name] = ProcedureV(ins.params, ins.body, env)
        elif isinstance(ins, S.Call):
            proc = env.get(ins.name)
            if not isinstance(proc, ProcedureV):
                raise self.fail(f"{ins.name!r} is not a procedure", ins)
            local = dict(proc.env)
            arg = self.eval(ins.arg, env)
            self.bind_params(proc.params, len(proc.params) != 1, arg, local, ins)
            with self.call(ins, f"procedure {ins.name}"):
                self.instructions(proc.body, local)
        elif isinstance(ins, S.WithFrom):
            self.with_from(ins, env)
        elif isinstance(ins, S.IfVariant):
            self.instructions(ins.then if self.holds(ins.cond) else ins.orelse, env)
        elif isinstance(ins, S.UnsupportedIns):
            raise self.unsupported(f"the instruction '{ins.what}'", ins)
        else:  # pragma: no cover - every instruction class is handled above
            raise self.fail(f"unknown instruction {ins!r}", ins)

    def holds(self, cond: tuple) -> bool:
        """A variant condition, under the variants asked for (herd's -variant)."""
        if cond[0] == "var":
            return cond[1] in self.variants
        if cond[0] == "not":
            return not self.holds(cond[1])
        a, b = self.holds(cond[1]), self.holds(cond[2])
        return a and b if cond[0] == "and" else a or b

    def rec_functions(self, bindings, env: dict, node) -> None:
        """`let rec` of functions (herd's recursive functions, as in its
        cross.cat): each closure sees `env`, which then holds them all, so
        they may call themselves and each other. A `let rec` of a relation
        or set is a least fixed point, which hrf does not compute."""
        if len(bindings) == 1 and len(bindings[0][0]) == 1 and not isinstance(bindings[0][1], S.Fun):
            # `let rec r = e`: the least fixed point of e in r (Dartagnan's PTX models)
            (name,), e = bindings[0]

            def body(x: Rel) -> Rel:
                value = self.eval(e, {**env, name: x})
                if not isinstance(value, Rel):
                    raise self.unsupported("let rec of a set (a least fixed point of sets)", node)
                return value

            self.bind([name], dsl.fix(body), env, node)
            return
        for names, b in bindings:
            if len(names) != 1 or not isinstance(b, S.Fun):
                raise self.unsupported("let rec of several relations or sets together (a least fixed point)", node)
        for names, b in bindings:
            self.bind(names, self.eval(b, env), env, node)

    def bind(self, names, value, env: dict, node) -> None:
        if len(names) == 1:
            if names[0] is not None:
                env[names[0]] = self.named(value, names[0])
            return
        if not isinstance(value, tuple) or len(value) != len(names):
            raise self.fail(f"cannot bind {len(names)} names to this value", node)
        for n, v in zip(names, value, strict=True):
            if n is not None:
                env[n] = v

    def named(self, value, name: str):
        if isinstance(value, Closure) and value.name == "*fun*":
            return Closure(value.params, value.tuple_params, value.body, value.env, name)
        return value

    def bind_params(self, params, tuple_params: bool, arg, env: dict, node) -> None:
        if tuple_params and len(params) != 1:
            if not isinstance(arg, tuple) or len(arg) != len(params):
                raise self.fail(f"expected {len(params)} arguments", node)
            for p, v in zip(params, arg, strict=True):
                if p is not None:
                    env[p] = v
        elif params and params[0] is not None:
            env[params[0]] = arg

    def with_from(self, ins: S.WithFrom, env: dict) -> None:
        """`with x from linearisations(S, r)`: x is any total order of the
        events of S that contains r, a witness order the core enumerates
        (the model holds of an execution when it holds for one such x).
        `generate_orders(S, r)` (herd's cross.cat, found by its name): the
        same per location, as the same-location part of such an order."""
        assert self.model is not None
        e = ins.exp
        fn = e.fn.name if isinstance(e, S.App) and isinstance(e.fn, S.Var) else None
        if not isinstance(e, S.App) or fn not in ("linearisations", "generate_orders", "generate_cos"):
            raise self.unsupported(
                "'with ... from' other than linearisations(S, r), generate_orders(S, r) or generate_cos(r)", ins
            )
        arg = self.eval(e.arg, env)
        if fn == "generate_cos":  # herd's cross.cat: generate_orders(W, r)
            fn, arg = "generate_orders", (dsl.W, arg)
        if not (isinstance(arg, tuple) and len(arg) == 2):
            raise self.fail(f"{fn} takes a set and a relation", e)
        over, within = _either(arg[0], True), arg[1]
        if not isinstance(over, Set):
            raise self.fail(f"linearisations orders a set, not {self.kind_of(over)}", e)
        empty = inside(over, ("empty_set",), single=self.single) or (
            self.single is not None and repr(over) == repr(self.single.set(dsl.EMPTY_SET))
        )
        if fn == "generate_orders" and empty:
            # no events to order (herd's lock sets, where hrf has no locks)
            order = dsl.base("empty")
        elif fn == "generate_orders" and inside(over, ("tag", "W"), ("tag", "IW"), single=self.single):
            # herd's cross.cat: one linearisation of a set of writes per
            # location, crossed, extending the initial writes' order: that
            # is coherence cut to the set (herd7's C11 `mo`), which hrf
            # enumerates with each candidate (no witness order to search)
            # (over herd's single-event RMWs: coherence of their events)
            order = (self.single.rel(dsl.co) if self.single else dsl.co) & (over * over)
        else:
            try:
                order = self.model.total_order(ins.name, self.single.representatives(over) if self.single else over)
            except ValueError as x:
                raise self.fail(str(x), ins) from None
            if self.single:
                order = self.single.order(order)
            if fn == "generate_orders":
                # herd's cross.cat: one linearisation of S per location,
                # crossed; each is a total order of S cut to same-location pairs
                order = order & dsl.loc
        if not isinstance(within, Empty):
            extends = self.as_rel(within, e, "the relation an order extends")
            if fn == "generate_orders":
                # each location's linearisation extends r on that location's part of S
                extends = extends & dsl.loc & (over * over)
            self.model.empty(extends - order, f"{ins.name}_extends")
        env[ins.name] = order

    def test(self, ins: S.Test, env: dict) -> None:
        assert self.model is not None
        self.tests += 1
        name = ins.name or f"{ins.kind}-{ins.line}"
        if any(c.name == name for c in self.model.checks):
            name = f"{name}-{ins.line}"
        v = _either(self.eval(ins.exp, env), want_set=False)
        if isinstance(v, Set) and ins.kind in ("acyclic", "irreflexive"):
            # herd: "relation expected" (only `empty` takes a set as well)
            raise self.fail(
                f"{ins.kind} takes a relation, not a set (relation expected; [S] is the set's identity)", ins.exp
            )
        rel = self.as_rel(v, ins.exp, f"the argument of {ins.kind}")
        if ins.test_type == "check":
            if ins.negated:
                raise self.unsupported("a negated check (~acyclic, ~irreflexive, ~empty)", ins)
            getattr(self.model, ins.kind)(rel, name)
        elif ins.test_type == "undefined_unless" and not ins.negated:
            # herd: the execution has undefined behaviour unless the test holds
            getattr(self.model, ins.kind)(rel, name, flag=name)
        elif ins.test_type == "flag" and ins.negated:
            # herd: `flag ~empty r as f` raises f when r is not empty
            getattr(self.model, ins.kind)(rel, name, flag=name)
        else:
            what = f"{ins.test_type} {'~' if ins.negated else ''}{ins.kind}"
            raise self.unsupported(f"the test '{what}'", ins)

    # ------------------------------------------------------------ expressions
    def as_rel(self, v, node, what: str) -> Rel:
        v = _either(v, want_set=False)
        if isinstance(v, Empty):
            return dsl.base("empty")
        if isinstance(v, Set):
            # herd: a set in a relation's place (e.g. `empty S`) is its identity
            return self.ident(v)
        if isinstance(v, Rel):
            return v
        raise self.fail(f"{what} must be a relation, not {self.kind_of(v)}", node)

    def kind_of(self, v) -> str:
        if isinstance(v, (Closure, Builtin)):
            return "a function"
        if isinstance(v, tuple):
            return "a tuple"
        if isinstance(v, Set):
            return "a set"
        if isinstance(v, Rel):
            return "a relation"
        return type(v).__name__

    def eval(self, e: S.Exp, env: dict):
        if isinstance(e, S.Var):
            if e.name not in env and e.name in LAZY and self.model is not None:
                if e.name not in self.lazy:
                    self.lazy[e.name] = lazy_builtin(e.name, self.model)
                return self.lazy[e.name]
            if e.name not in env:
                raise self.fail(f"unknown name {e.name!r}", e)
            v = env[e.name]
            if isinstance(v, Builtin) and v.arity == 0:
                return v.fn()
            return v
        if isinstance(e, S.Const):
            return EMPTY if e.what == "empty" else dsl.ALL
        if isinstance(e, S.Op1):
            # a chain of unary operators (po?????...) in a loop, innermost first
            chain = [e]
            while isinstance(chain[-1].arg, S.Op1):
                chain.append(chain[-1].arg)
            v = self.eval(chain[-1].arg, env)
            for op in reversed(chain):
                v = self.op1(op, v)
            return v
        if isinstance(e, S.Op):
            if e.op == "tuple":
                return tuple(self.eval(a, env) for a in e.args)
            return self.binary(e, env)
        if isinstance(e, S.App):
            return self.apply(e, self.eval(e.fn, env), self.eval(e.arg, env))
        if isinstance(e, S.Fun):
            return Closure(e.params, e.tuple_params, e.body, env, "*fun*")
        if isinstance(e, S.Bind):
            local = dict(env)
            if e.rec:
                self.rec_functions(e.bindings, local, e)
            for names, b in () if e.rec else e.bindings:
                self.bind(names, self.eval(b, env), local, e)
            return self.eval(e.body, local)
        if isinstance(e, S.TagE):
            raise self.unsupported(f"the tag '{e.name}", e)
        if isinstance(e, S.Unsupported):
            raise self.unsupported(e.what, e)
        raise self.fail(f"cannot evaluate {e!r}", e)  # pragma: no cover

    def binary(self, e: S.Op, env: dict):
        """A nest of binary operators, evaluated operands first as the tree
        says, in a loop (a `|` of 5,000 terms is 5,000 steps, not 5,000
        frames)."""
        vals: dict[int, Any] = {}
        stack: list[tuple[S.Exp, bool]] = [(e, False)]
        while stack:
            x, ready = stack.pop()
            if ready:
                assert isinstance(x, S.Op)
                out = vals.pop(id(x.args[0]))
                for a in x.args[1:]:
                    out = self.op2(x, out, vals.pop(id(a)))
                vals[id(x)] = out
            elif isinstance(x, S.Op) and x.op != "tuple" and x.args:
                stack.append((x, True))
                stack.extend((a, False) for a in reversed(x.args))
            else:
                vals[id(x)] = self.eval(x, env)
        return vals[id(e)]

    def apply(self, e: S.App, fn, arg):
        if isinstance(fn, Builtin) and fn.higher:
            if not isinstance(arg, Closure):
                raise self.fail(f"{fn.name} takes a function (fun S -> ...)", e)
            return fn.fn(lambda v: self.as_rel(self.apply(e, arg, v), e, f"the body of {fn.name}"))
        if isinstance(fn, Builtin):
            args = arg if fn.arity > 1 and isinstance(arg, tuple) else (arg,)
            try:
                return fn.fn(*args)
            except (TypeError, ValueError) as x:
                raise self.fail(f"{fn.name}: {x}", e) from None
        if isinstance(fn, Rel) and isinstance(e.fn, S.Var) and e.fn.name in HERD2015_SELECTS:
            # herd 2015's selections: `ext(r)` is r & ext, `WW(r)` is r & (W * W)
            return fn & self.as_rel(arg, e, f"the argument of {e.fn.name}")
        if isinstance(fn, Closure):
            local = dict(fn.env)
            local[fn.name] = fn  # herd lets a named function see itself
            self.bind_params(fn.params, fn.tuple_params, arg, local, e)
            with self.call(e, f"function {fn.name}"):
                return self.eval(fn.body, local)
        raise self.fail(f"{self.kind_of(fn)} is applied to an argument, but is not a function", e)

    def op1(self, e: S.Op1, v):
        op = e.op
        if isinstance(v, SetOrRel) and op == "comp":
            # still either: the complement of the set or of the relation
            return SetOrRel(~v.as_set, dsl.universal - v.as_rel, v.on_set)
        v = _either(v, want_set=op == "toid")
        if isinstance(v, Empty) and op == "comp":
            # everything, a set or a relation as the context wants (as `0` is either)
            return SetOrRel(dsl.ALL, dsl.universal)
        if isinstance(v, Empty):
            return EMPTY
        if op == "comp":
            if isinstance(v, Set):
                return ~v
            if isinstance(v, Rel):
                return dsl.universal - v
        elif op == "toid":
            if isinstance(v, Set):
                return self.ident(v)
            if isinstance(v, Rel):
                raise self.fail("[...] takes a set, not a relation", e)
        elif op == "square":
            if isinstance(v, Set):
                return v * v
            if isinstance(v, Rel):
                return v >> v
        elif isinstance(v, Rel) or isinstance(v, Set) and op in ("star", "plus", "opt", "inv"):
            # herd lifts a set to its identity relation here
            return self.closure(op, v if isinstance(v, Rel) else self.ident(v))
        raise self.fail(f"'{op}' cannot take {self.kind_of(v)}", e)

    def closure(self, op: str, r: Rel) -> Rel:
        if self.single and op == "opt":
            return r | self.single.same
        if self.single and op == "star":
            return r.plus | self.single.same
        return {"star": lambda: r.star, "plus": lambda: r.plus, "opt": lambda: r.opt, "inv": lambda: r.inv}[op]()

    def op2(self, e: S.Op, a, b):
        op = e.op
        if op == "cartesian":
            a, b = _either(a, True), _either(b, True)
        elif op == "seq":
            a, b = _either(a, False), _either(b, False)
        else:  # a name that is both takes the other side's kind
            a, b = _either(a, isinstance(b, Set)), _either(b, isinstance(a, Set))
        if op == "cartesian":
            if isinstance(a, Empty) or isinstance(b, Empty):
                return EMPTY
            if isinstance(a, Set) and isinstance(b, Set):
                return a * b
            raise self.fail(f"the cartesian product takes two sets, not {self.kind_of(a)} and {self.kind_of(b)}", e)
        if op == "add":
            raise self.unsupported("'++' (adding to a set of relations)", e)
        if isinstance(a, Empty) or isinstance(b, Empty):
            other = b if isinstance(a, Empty) else a
            if op == "union":
                return other
            if op in ("inter", "seq"):
                return EMPTY
            if op == "diff":
                return EMPTY if isinstance(a, Empty) else a
        if op == "seq":
            return self.as_rel(a, e, "the left of ';'") >> self.as_rel(b, e, "the right of ';'")
        if isinstance(a, Set) and isinstance(b, Set) and op == "inter" and {a.key, b.key} == {dsl.R.key, dsl.W.key}:
            # the events that are both reads and writes: herd's single-event RMWs
            self.single_events_used = True
        if isinstance(a, Set) and isinstance(b, Set) or isinstance(a, Rel) and isinstance(b, Rel):
            return {"union": lambda: a | b, "inter": lambda: a & b, "diff": lambda: a - b}[op]()
        sym = {"union": "|", "inter": "&", "diff": "\\"}[op]
        raise self.fail(f"'{sym}' between {self.kind_of(a)} and {self.kind_of(b)}", e)


def _read_cat(path, error) -> str:
    """A cat file's text (a regular file of bounded size, UTF-8); `error`
    makes the located error for a file that cannot be read."""
    from ..errors import read_input

    try:
        data = read_input(path)
    except OSError as e:
        raise error(f"cannot read the cat file {os.fspath(path)}: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise error(
            f"the cat file {os.fspath(path)} is not UTF-8 text (byte 0x{data[e.start]:02x}, line {line})"
        ) from None


def _either(v, want_set: bool):
    """A name herd uses as a set and as a relation (`rmw`), as `want_set` says."""
    if isinstance(v, SetOrRel):
        if want_set and v.on_set is not None:
            v.on_set()
        return v.as_set if want_set else v.as_rel
    return v


def load(
    path,
    catdir: list[str] | None = None,
    variants=(),
    cas_writeback: bool | None = None,
    single_rmw: bool | None = None,
    reading: str = "isa",
) -> Model:
    """The Model a .cat file defines (includes found beside it, then in
    `catdir`, then in `$HRF_CATDIR`), its `if "name"` instructions decided
    by `variants` (herd's -variant). `cas_writeback`, where given, says
    whether a failing compare-exchange writes back the value it read (a
    choice of herd's front end, not of the file: herd's OpenCL of 2015
    does, the RSP artifact's herd does not); otherwise the file's options
    say (on unless `withoutcaswriteback`). `single_rmw` reads the file over
    herd's single-event RMWs (`SingleEventRmw`) or not; where not given,
    the file says by its use: it takes `rmw` as a set, or intersects R with
    W (herd's RMW is in both). `reading` says how the events of Dat3M's
    PTX tests are tagged for a file whose title starts `PTX`: "isa" as
    the PTX ISA says (fence.sc is also in ACQ_REL, a failing atom.cas
    writes nothing), "dartagnan" as Dartagnan's front end does (fence.sc
    in SC alone; a failing atom.cas writes the old value back, unless
    `cas_writeback` says otherwise)."""
    from ..errors import check_names
    from ..litmus import resolve

    catdir, variants = check_names("catdir", catdir), check_names("variants", variants)
    path = os.fspath(resolve(path))  # litmus/cat/... : the copy shipped with hrf where there is none here
    text = _read_cat(path, lambda msg: DefinitionError(msg, path))
    dirs = list(catdir or []) + [d for d in os.environ.get("HRF_CATDIR", "").split(os.pathsep) if d]
    if reading not in READINGS:
        raise InvalidArgument(f"reading must be one of {', '.join(READINGS)}, not {reading!r}")
    if reading == "dartagnan" and cas_writeback is None:
        cas_writeback = True
    return _compile(path, text, dirs, variants, cas_writeback, single_rmw, confined=False, reading=reading)


def load_text(text: str, variants=(), single_rmw: bool | None = None, *, confined: bool = True) -> Model:
    """The Model of cat text that comes with no file (pasted in `hrf serve`'s
    page): `confined`, it may include only hrf's shipped cat files, by name,
    and reads nothing else of this machine's files."""
    from ..errors import check_names

    if not isinstance(text, str):
        raise DefinitionError(f"cat text must be a string, not {type(text).__name__}")
    variants = check_names("variants", variants)
    return _compile(None, text, [], variants, None, single_rmw, confined=confined)


def _compile(path, text, dirs, variants, cas_writeback, single_rmw, confined: bool, reading: str = "isa") -> Model:
    cat = parse(text, path)
    builtins = builtins_for(cat.arch, reading)
    first = CatCompiler(path, text, dirs, builtins, variants, single_rmw=bool(single_rmw), confined=confined)
    model = first.compile(cat)
    single = first.single_events_used if single_rmw is None else single_rmw
    if single and not single_rmw:
        # written for herd's single-event RMWs: read again over them
        model = CatCompiler(path, text, dirs, builtins, variants, single_rmw=True, confined=confined).compile(cat)
    if single:
        model.doc += "; herd's RMWs as one event"
    if cas_writeback is not None:
        model.cas_writeback = cas_writeback
    return model
