"""A model as cat text (`hrf models --cat NAME`): read back by hrf.cat, it
compiles to the model's IR again (tests/test_cat.py checks every shipped
model). hrf's own names are used where herd has none (`tag.NAME`,
`same.NAME`, `union_per.NAME`, `with x from linearisations(S, 0)` for a
witness order); sub-expressions used more than once are `let`-bound."""

from __future__ import annotations

from ..dsl import Model
from .builtins import same_name

_BASE = {"universal": "unv", "empty": "0"}
_KINDS = {"R", "W", "F", "M", "IW"}
_BINARY = {
    "union": "|",
    "set_union": "|",
    "inter": "&",
    "set_inter": "&",
    "diff": "\\",
    "set_diff": "\\",
    "seq": ";",
    "prod": "*",
}
_POSTFIX = {"inv": "^-1", "plus": "+", "star": "*", "opt": "?"}


class _Printer:
    def __init__(self, model: Model):
        self.model = model
        self.ir = model.ir()
        self.nodes = self.ir["nodes"]
        self.orders = {o["name"]: o["set"] for o in self.ir["orders"]}
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.ordered: set[str] = set()
        self.ensured: set[int] = set()
        n = len(self.nodes)
        self.uses = [0] * n
        self.free: list[frozenset] = [frozenset()] * n  # variables a node depends on
        for i, node in enumerate(self.nodes):
            kids = self.children(node)
            for k in kids:
                self.uses[k] += 1
            free = frozenset().union(*(self.free[k] for k in kids)) if kids else frozenset()
            if node["op"] == "var":
                free = frozenset([node["name"]])
            if node["op"] == "foreach":
                free = free - {node["var"]}
            self.free[i] = free

    @staticmethod
    def children(node) -> list[int]:
        return [node[k] for k in ("a", "b", "body") if k in node]

    def ensure(self, i: int) -> None:
        """Emit the lets (and witness orders) node i's text refers to, once
        per node (a DAG with much sharing is not walked as a tree)."""
        if i in self.ensured:
            return
        self.ensured.add(i)
        node = self.nodes[i]
        for k in self.children(node):
            self.ensure(k)
        if node["op"] == "base" and node["name"] in self.orders and node["name"] not in self.ordered:
            s = self.orders[node["name"]]
            self.ensure(s)
            self.ordered.add(node["name"])
            self.lines.append(f"with {node['name']} from linearisations({self.text(s)}, 0)")
        shared = self.uses[i] >= 2 and not self.free[i] and self.children(node)
        if shared and i not in self.names:
            text = self.text(i)
            self.names[i] = f"n{i}"
            self.lines.append(f"let n{i} = {text}")

    def text(self, i: int) -> str:
        if i in self.names:
            return self.names[i]
        node = self.nodes[i]
        op = node["op"]
        if op == "tag":
            return node["name"] if node["name"] in _KINDS else f"tag.{node['name']}"
        if op == "all_set":
            return "_"
        if op == "empty_set":
            return "emptyset"
        if op == "var":
            return node["name"]
        if op == "base":
            return _BASE.get(node["name"], node["name"])
        if op in ("same_thread_attr", "same_event_attr"):
            return same_name(op, node["name"])
        if op in _BINARY:
            return f"({self.text(node['a'])} {_BINARY[op]} {self.text(node['b'])})"
        if op in _POSTFIX:
            return f"(({self.text(node['a'])}){_POSTFIX[op]})"
        if op == "ident":
            return f"[{self.text(node['a'])}]"
        if op in ("domain", "range"):
            return f"{op}({self.text(node['a'])})"
        if op == "foreach":
            return f"union_per.{node['attr']}(fun {node['var']} -> {self.text(node['body'])})"
        raise ValueError(f"no cat text for the IR node {node}")  # pragma: no cover - every IR node is above

    def print(self) -> str:
        m = self.model
        doc = " ".join(m.doc.split()).replace("*)", "* )") if m.doc else ""
        head = [f'"{m.name}"']
        writeback = (
            None if m.cas_writeback is None else ("withcaswriteback" if m.cas_writeback else "withoutcaswriteback")
        )
        options = [o for o in ("withoutthinair" if not m.thin_air else None, writeback) if o]
        if options:
            head.append(" ".join(options))
        if doc:
            head.append(f"(* {doc} *)")
        body = []
        for name, node in self.ir["shows"]:
            self.ensure(node)
            body.append(f"show {self.text(node)} as {name}")
        for c in self.ir["checks"]:
            self.ensure(c["node"])
            test = f"{c['kind']} {self.text(c['node'])} as {c['name']}"
            body.append(f"undefined_unless {test}" if c["flag"] else test)
        return "\n".join(head + [""] + self.lines + [""] + body) + "\n"


def to_cat(model: Model) -> str:
    """The model as cat text, for hrf.cat to read back."""
    return _Printer(model).print()
