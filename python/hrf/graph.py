"""Execution graphs as Graphviz DOT: events per thread inside scope boxes
(device > work-group > work-item), po / rf / co / fr / rmw edges, and the
events of undefined-behaviour flags highlighted."""
from __future__ import annotations


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
    lines = ["digraph execution {", '  rankdir=TB; node [shape=box, fontname="monospace", fontsize=10];',
             f"  label={_q(f'{test.name} under {result.model}')};"]
    init = [e for e in events if e["thread"] is None]
    if init:
        lines.append('  subgraph cluster_init { label="init"; style=dotted;')
        for e in init:
            label = f"W {comp.locations[e['loc']]}={e['value']}"
            lines.append(f"    e{e['id']} [label={_q(label)}];")
        lines.append("  }")
    # scope boxes: device > work-group > thread
    tree: dict = {}
    for i, t in enumerate(test.threads):
        tree.setdefault(t.dev or 0, {}).setdefault((t.wg if t.wg is not None else f"own{i}"), []).append(i)
    for dev, wgs in tree.items():
        lines.append(f'  subgraph cluster_dev{dev} {{ label="device {dev}"; style=rounded;')
        for wg, ts in wgs.items():
            lines.append(f'    subgraph cluster_wg_{dev}_{wg} {{ label="work-group {wg}"; style=dashed;')
            for ti in ts:
                lines.append(f'      subgraph cluster_t{ti} {{ label="{test.threads[ti].name}"; style=solid;')
                for e in events:
                    if e["thread"] == ti:
                        d = result.describe_event(e)
                        label = f"{d['kind']} {d.get('loc', '')}={d['value']}" if d["kind"] != "F" else d["op"]
                        label += f"\n{d['op']} (line {d.get('line')})"
                        color = ', color=red, penwidth=2' if e["id"] in hot else ""
                        lines.append(f"        e{e['id']} [label={_q(label)}{color}];")
                lines.append("      }")
            lines.append("    }")
        lines.append("  }")
    styles = {"po": "color=black", "rf": "color=red, fontcolor=red", "co": "color=blue, fontcolor=blue",
              "rmw": "color=orange, style=bold", "fr": "color=darkorange, style=dashed, fontcolor=darkorange"}
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
            lines.append(f'  e{a} -> e{b} [label={_q(f["kind"])}, dir=none, color=red, style=dotted, penwidth=2];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def render(dot: str, path) -> None:
    """Write DOT text to `path`; a suffix other than .dot is rendered with
    Graphviz (the `graphviz` package driving Debian's `dot`)."""
    from pathlib import Path

    from .errors import HrfError
    p = Path(path)
    fmt = p.suffix.lstrip(".").lower()
    if fmt in ("dot", "gv", ""):
        p.write_text(dot)
        return
    try:
        import graphviz
    except ImportError:
        raise HrfError(f"writing {p} needs the graphviz package: pip install 'hrf[graph]' "
                       f"(and Graphviz itself: apt-get install graphviz), or ask for a .dot file") from None
    try:
        data = graphviz.Source(dot).pipe(format=fmt)
    except graphviz.ExecutableNotFound:
        raise HrfError(f"writing {p} needs Graphviz's `dot` program: apt-get install graphviz") from None
    except graphviz.CalledProcessError as e:
        raise HrfError(f"Graphviz could not render {p}: {e.stderr.decode(errors='replace').strip()}") from None
    p.write_bytes(data)
