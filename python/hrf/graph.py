"""Execution graphs as Graphviz DOT: events per thread inside scope boxes
(device > work-group > work-item), po / rf / co / fr / rmw edges, and the
events of undefined-behaviour flags highlighted."""

from __future__ import annotations

# the scope-tree boxes' words per dialect (outer, inner): PTX's GPUs and
# CTAs; device and work group elsewhere
GROUP_WORDS = {"PTX": ("GPU", "CTA"), "GPU_PTX": ("GPU", "CTA"), "VULKAN": ("device", "work group")}


def _q(s) -> str:
    """A DOT string literal; newlines become DOT's centred line breaks."""
    text = str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + text + '"'


def execution_dot(result, execution: dict) -> str:
    if execution is None:
        return "digraph execution {}\n"
    comp = result.compiled()
    test = comp.test
    events = execution["events"]
    hot = {e["id"] for f in result.flags if f["execution"] is execution for e in f["events"]}
    lines = [
        "digraph execution {",
        '  rankdir=TB; node [shape=box, fontname="monospace", fontsize=10];',
        f"  label={_q(f'{test.name} under {result.model}')};",
    ]
    init = [e for e in events if e["thread"] is None]
    if init:
        lines.append('  subgraph cluster_init { label="init"; style=dotted;')
        for e in init:
            d = result.describe_event(e)
            label = f"W {d['loc']}={d.get('state', d['value'])}"
            lines.append(f"    e{e['id']} [label={_q(label)}];")
        lines.append("  }")
    # scope boxes: device > work-group > thread, in the dialect's words (a
    # PTX test's GPUs and CTAs); a test with no scope tree (C) has none
    outer, inner = GROUP_WORDS.get(test.arch, ("device", "work-group"))
    boxes = any(t.dev is not None or t.wg is not None for t in test.threads)
    tree: dict = {}
    for i, t in enumerate(test.threads):
        tree.setdefault(t.dev or 0, {}).setdefault((t.wg if t.wg is not None else f"own{i}"), []).append(i)
    for dev, wgs in tree.items():
        if boxes:
            lines.append(f'  subgraph cluster_dev{dev} {{ label="{outer} {dev}"; style=rounded;')
        for wg, ts in wgs.items():
            if boxes:
                label = f"{inner} {wg}" if not str(wg).startswith("own") else ""
                lines.append(f'    subgraph cluster_wg_{dev}_{wg} {{ label="{label}"; style=dashed;')
            for ti in ts:
                lines.append(f'      subgraph cluster_t{ti} {{ label="{test.threads[ti].name}"; style=solid;')
                for e in events:
                    if e["thread"] == ti:
                        d = result.describe_event(e)
                        value = d.get("state", d["value"])  # (an mbarrier's state as the ISA names it)
                        label = f"{d['kind']} {d.get('loc', '')}={value}" if d["kind"] != "F" else d["op"]
                        label += f"\n{d['op']} (line {d.get('line')})"
                        color = ", color=red, penwidth=2" if e["id"] in hot else ""
                        lines.append(f"        e{e['id']} [label={_q(label)}{color}];")
                lines.append("      }")
            if boxes:
                lines.append("    }")
        if boxes:
            lines.append("  }")
    styles = {
        "po": "color=black",
        "rf": "color=red, fontcolor=red",
        "co": "color=blue, fontcolor=blue",
        "rmw": "color=orange, style=bold",
        "fr": "color=darkorange, style=dashed, fontcolor=darkorange",
    }
    init_ids = {e["id"] for e in init}
    for rel in ("po", "rf", "co", "rmw"):
        for a, b in execution.get(rel, []):
            if rel == "co" and a in init_ids:
                continue  # the init write is co-first anyway (herd hides it too)
            lines.append(f"  e{a} -> e{b} [label={rel}, {styles[rel]}];")
    # fr: a read before the co-successors of the write it reads from
    co_next = {}
    for a, b in execution.get("co", []):
        co_next[a] = b
    for w, r in execution.get("rf", []):
        if w in co_next:
            lines.append(f"  e{r} -> e{co_next[w]} [label=fr, {styles['fr']}];")
    # the model's own relations (herd's `show`), e.g. synchronisation
    for name, pairs in execution.get("shown", []):
        for a, b in pairs:
            lines.append(f"  e{a} -> e{b} [label={_q(name)}, color=darkgreen, fontcolor=darkgreen, penwidth=1.5];")
    for f in result.flags:
        if f["execution"] is execution and len(f["events"]) == 2:
            a, b = f["events"][0]["id"], f["events"][1]["id"]
            lines.append(f"  e{a} -> e{b} [label={_q(f['kind'])}, dir=none, color=red, style=dotted, penwidth=2];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# Suffixes a graph can be written to: DOT text, or what Graphviz renders.
GRAPH_FORMATS = ("dot", "gv", "svg", "png", "pdf", "jpg", "jpeg", "gif", "ps", "eps", "")


def check_graph_path(path) -> None:
    """Refuse, before any work, a graph path whose suffix hrf cannot write."""
    from pathlib import Path

    from .errors import InvalidArgument

    fmt = Path(path).suffix.lstrip(".").lower()
    if fmt not in GRAPH_FORMATS:
        raise InvalidArgument(
            f"cannot draw to {path}: the suffix must be one of " + ", ".join("." + f for f in GRAPH_FORMATS if f)
        )


def dot_output(dot: str, fmt: str) -> bytes:
    """DOT text rendered by Graphviz's `dot` program in format `fmt` (svg,
    png, pdf, ...); its absence or failure is an HrfError that says so."""
    import shutil
    import subprocess

    from .errors import HrfError

    exe = shutil.which("dot")
    if exe is None:
        raise HrfError("drawing needs Graphviz's `dot` program (apt-get install graphviz), or ask for a .dot file")
    run = subprocess.run([exe, f"-T{fmt}"], input=dot.encode(), capture_output=True, check=False)
    if run.returncode != 0:
        raise HrfError(f"Graphviz could not render the graph: {run.stderr.decode(errors='replace').strip()}")
    return run.stdout


def render(dot: str, path) -> None:
    """Write DOT text to `path`; a suffix other than .dot is rendered with
    Graphviz's `dot` program (Debian: apt-get install graphviz)."""
    from pathlib import Path

    from .errors import HrfError, write_output

    p = Path(path)
    check_graph_path(p)
    fmt = p.suffix.lstrip(".").lower()
    if fmt in ("dot", "gv", ""):
        write_output(p, dot)
        return
    try:
        data = dot_output(dot, fmt)
    except HrfError as e:
        raise HrfError(f"writing {p}: {e}") from None
    write_output(p, data)


def count(n: int, noun: str) -> str:
    """`1 outcome`, `2 outcomes`: for the results' short reprs."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


class Drawable:
    """A result that draws itself: `to_dot()` (each class's own), `render`
    to a file, and `_repr_svg_` so that a notebook shows the picture."""

    def to_dot(self) -> str:
        raise NotImplementedError

    def render(self, path) -> None:
        """Write `to_dot` to path: .dot as text, .svg/.png/.pdf through Graphviz."""
        render(self.to_dot(), path)

    def _repr_svg_(self) -> str | None:
        from .errors import HrfError

        try:
            return dot_output(self.to_dot(), "svg").decode()
        except HrfError:  # nothing to draw, or no Graphviz: the notebook shows the repr
            return None


# ---------------------------------------------------------------- machine traces
def _trace_lanes(prog) -> list:
    """The sequence chart's lifelines, left to right: per device, per
    work-group its threads then its L1 (with its fifo); then the device's
    L2 (with its fifo); memory last. Each (key, header)."""
    lanes = []
    for dev in sorted({t.dev for t in prog.threads}):
        for wg in sorted({t.wg for t in prog.threads if t.dev == dev}):
            for i, t in enumerate(prog.threads):
                if t.wg == wg:
                    lanes.append((("t", i), f"{t.name}\nwg {wg}, dev {dev}"))
            lanes.append((("l1", wg), f"L1 + fifo\nwg {wg}"))
        lanes.append((("l2", dev), f"L2 + fifo\ndev {dev}"))
    lanes.append((("mem", 0), "memory"))
    return lanes


def _dev_of(prog, wg: int) -> int:
    return next(t.dev for t in prog.threads if t.wg == wg)


def _trace_row(prog, st: dict):
    """One step as (from lane, to lane, label, style): an arrow between two
    lifelines, or a note on one (from == to). [RSP15] sec. 5 names."""
    k = st["kind"]
    if k == "thread":
        t, pc = st["thread"], st["pc"]
        th = prog.threads[t]
        ins = th.code[pc]
        text = prog.instruction_text(t, pc)
        if "val" in st:
            text += f"\n{th.regs[st['reg']]} = {st['val']}"
        me = ("t", t)
        if "fault" in st:
            return me, me, f"{text}\nFAULT: {st['fault']}", "fault"
        from .machine.instructions import row_of

        lane = row_of(ins).lane  # the instruction table says how a step is drawn
        cache = ("l1", th.wg) if ins.get("level", 1) == 1 else ("l2", th.dev)
        if lane == "read":
            return cache, me, text, lane
        if lane in ("write", "rmw", "sync"):
            return me, cache, text, lane
        return me, me, text, "local"
    env = "env: "
    if k == "fetch_l1":
        return ("l2", _dev_of(prog, st["wg"])), ("l1", st["wg"]), f"{env}fetch {st['loc']} = {st['val']}", "env"
    if k == "fetch_l2":
        return ("mem", 0), ("l2", st["dev"]), f"{env}fetch {st['loc']} = {st['val']}", "env"
    if k in ("dequeue_l1", "dequeue_l2", "writeback_l1", "writeback_l2"):
        l1 = k.endswith("l1")
        if l1:
            src = ("l1", st["wg"])
            dst = ("l2", _dev_of(prog, st["wg"]))
        else:
            src, dst = ("l2", st["dev"]), ("mem", 0)
        if "flush" in st:
            return src, src, f"{env}dequeue FLUSH({prog.threads[st['flush']].name})", "env"
        if k.startswith("dequeue") and not st["wrote"]:
            return src, src, f"{env}dequeue {st['loc']} (clean)", "env"
        how = "dequeue" if k.startswith("dequeue") else "write back"
        return src, dst, f"{env}{how} {st['loc']} = {st['val']}", "env"
    if k in ("evict_l1", "evict_l2"):
        cache = ("l1", st["wg"]) if k == "evict_l1" else ("l2", st["dev"])
        return cache, cache, f"{env}evict {st['loc']}", "env"
    return ("mem", 0), ("mem", 0), str(st), "env"


_TRACE_STYLE = {
    "read": "color=red, fontcolor=red",
    "write": "color=blue, fontcolor=blue",
    "rmw": "color=orange, fontcolor=darkorange, dir=both",
    "sync": "color=darkgreen, fontcolor=darkgreen",
    "env": "color=gray40, fontcolor=gray30, style=dashed",
    "local": "",
    "fault": "color=red",
}


def trace_dot(prog, steps: list, title: str, end: str = "") -> str:
    """A machine trace (the core's steps, `MachineResult.steps`) as a
    sequence chart: a lifeline per thread, cache and memory, time going
    down, one row per step: loads, stores, RMWs, flushes and invalidations
    as arrows between a thread and its cache, the environment's fetches
    and write-backs as dashed arrows between levels, register moves,
    branches and locks as notes on the thread's line. `end` (the outcome)
    closes the chart."""
    lanes = _trace_lanes(prog)
    col = {key: i for i, (key, _) in enumerate(lanes)}
    rows = [_trace_row(prog, st) for st in steps]
    label = title + (f"\n{end}" if end else "")
    out = [
        "digraph trace {",
        "  newrank=true; nodesep=0.3; ranksep=0.35;",
        '  node [fontname="monospace", fontsize=10]; edge [fontname="monospace", fontsize=9];',
        f"  labelloc=t; label={_q(label)};",
    ]
    n = len(rows)
    for li, (_, head) in enumerate(lanes):
        out.append(f'  n{li}_0 [shape=box, style="rounded,filled", fillcolor=lightgray, label={_q(head)}];')
        for r in range(1, n + 2):
            out.append(f'  n{li}_{r} [shape=point, width=0.02, label=""];')
        chain = " -> ".join(f"n{li}_{r}" for r in range(n + 2))
        out.append(f"  {chain} [arrowhead=none, style=dotted, weight=100];")
    for r in range(n + 2):
        same = " ".join(f"n{li}_{r};" for li in range(len(lanes)))
        order = " -> ".join(f"n{li}_{r}" for li in range(len(lanes)))
        out.append(f"  {{ rank=same; {same} }}")
        if len(lanes) > 1:
            out.append(f"  {order} [style=invis];")
    for r, (a, b, text, kind) in enumerate(rows, start=1):
        style = _TRACE_STYLE[kind]
        if a == b:
            color = ", color=red, fontcolor=red" if kind == "fault" else ""
            out.append(
                f"  n{col[a]}_{r} [shape=box, width=0, height=0, margin=0.04, label={_q(f'{r}. {text}')}{color}];"
            )
        else:
            out.append(
                f"  n{col[a]}_{r} -> n{col[b]}_{r} [label={_q(f'{r}. {text}')}, constraint=false"
                f"{', ' + style if style else ''}];"
            )
    out.append("}")
    return "\n".join(out) + "\n"
