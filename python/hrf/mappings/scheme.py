"""A compilation scheme as data: rows from a source access (operation,
scope class, remote) to a sequence of machine instructions, with where
each row comes from. The shipped schemes and a user's scheme file build
`Scheme`s from these; `hrf.mappings.compile` applies them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import DefinitionError, UnsupportedFeature
from ..machine import parse_instruction

SCOPE_CLASS = {"wi": "wg", "sg": "wg", "wg": "wg", "dev": "dev", "all": "all"}
# The access itself in a row, by operation.
ACCESS: dict[str, tuple[str, ...]] = {"load": ("LD",), "store": ("ST",), "rmw": ("RMWL1", "RMWL2")}


def key_text(key) -> str:
    """A row's key as text: `load dev remote`."""
    op, scope, remote = key
    return f"{op} {scope}{' remote' if remote else ''}"


@dataclass(frozen=True)
class Row:
    seq: tuple
    source: str  # where the row comes from (paper, slide, hrf's derivation)


# The repair of a device-scope RMW on the [RSP15] machine (rsp-new, hrf-cache-locked):
# flush, RMW at the L2 and invalidate under the work-group's rmw lock, which
# every work-group RMW takes too, so that a work-group RMW in the L1 cannot
# run between them and its line, written back after, overwrite the increment
# (litmus/rsp/rmw-dev-vs-wg.litmus)
LOCKED_DEVICE_RMW = ("LKrmw WG", "FLUL1 WG", "RMWL2", "INVL1 WG", "UNLKrmw WG")
LOCKED_WORK_GROUP_RMW = ("LKrmw WG", "RMWL1", "UNLKrmw WG")


@dataclass
class Scheme:
    name: str
    description: str
    model: str  # the source model soundness is checked against by default
    rows: dict  # (op, scope, remote) -> Row
    notes: str = ""
    # Corpus tests (paths from the repository root) on which `hrf soundness`
    # finds the scheme unsound; tests/test_isabelle.py re-runs them.
    refuted_by: tuple = ()
    # Rows that replace or extend `rows` when the program runs on several
    # devices (where a device's L2 is no longer the point of coherence).
    several_devices: dict = field(default_factory=dict)
    # Why a key has no row: (op, scope, remote) -> reason, for the error.
    missing: dict = field(default_factory=dict)
    # Rows for seq_cst accesses, in place of the rows above where a key has
    # one (a scheme for acquire/release gives SC accesses no store-load
    # order), and why a seq_cst access of a key has no row.
    seq_cst: dict = field(default_factory=dict)
    seq_cst_missing: dict = field(default_factory=dict)

    def row(self, op: str, scope: str, remote: bool, ndev: int, where=None, sc: bool = False) -> Row:
        """The row for an access (`sc`: a seq_cst one)."""
        # On a machine with one device, all-devices scope is device scope.
        if scope == "all" and ndev == 1:
            scope = "dev"
        key = (op, scope, remote)

        def no_row(why):
            what = f"{'remote ' if remote else ''}{'seq_cst ' if sc else ''}{op} at scope {scope}"
            return UnsupportedFeature(
                f"scheme {self.name} has no row for a {what}" + (f": {why}" if why else ""), *(where or (None, None))
            )

        if sc and key in self.seq_cst_missing:
            raise no_row(self.seq_cst_missing[key])
        r = (
            (self.seq_cst.get(key) if sc else None)
            or (self.several_devices.get(key) if ndev > 1 else None)
            or self.rows.get(key)
        )
        if r is None:
            raise no_row(self.missing.get(key))
        return r

    def validate(self) -> None:
        """Raise DefinitionError unless every row has a key (operation,
        scope, remote) as the module docstring says and a sequence of
        machine instructions with the access itself exactly once."""
        for part, rows in (("rows", self.rows), ("several_devices", self.several_devices), ("seq_cst", self.seq_cst)):
            for key, r in rows.items():
                where = f"scheme {self.name}, {part}[{key!r}]"
                if not (
                    isinstance(key, tuple)
                    and len(key) == 3
                    and key[0] in ACCESS
                    and (key[1] == "na" or key[1] in SCOPE_CLASS.values())
                    and isinstance(key[2], bool)
                ):
                    raise DefinitionError(
                        f"{where}: a key is (operation, scope, remote): operation load, store "
                        f"or rmw, scope na, wg, dev or all, remote True or False"
                    )
                if (
                    not isinstance(r, Row)
                    or not isinstance(r.seq, (tuple, list))
                    or not all(isinstance(w, str) for w in r.seq)
                ):
                    raise DefinitionError(f"{where}: a row is Row((instruction, ...), source)")
                found = [w for w in r.seq if any(w in a for a in ACCESS.values())]
                if len(found) != 1 or found[0] not in ACCESS[key[0]]:
                    raise DefinitionError(
                        f"{where}: the sequence must hold the {key[0]} itself once "
                        f"({' or '.join(ACCESS[key[0]])}), not {found or 'nothing'}"
                    )
                for w in r.seq:
                    try:
                        machine_instr(w, {"op": "ld", "dst": 0, "loc": 0}, 0)
                    except (ValueError, KeyError, IndexError) as e:
                        raise DefinitionError(f"{where}: {w!r} is not a machine instruction of a row: {e}") from None

    def table(self) -> str:
        """The scheme as a table: operation, scope, remote, sequence, source."""
        out = [f"Scheme {self.name}: {self.description}", ""]

        def lines(rows):
            for key, r in rows.items():
                out.append(f"  {key_text(key):<20} {'; '.join(r.seq):<62} {r.source}")

        lines(self.rows)
        if self.several_devices:
            out += ["", "On several devices, in place of or besides the rows above:"]
            lines(self.several_devices)
        if self.seq_cst:
            out += ["", "For seq_cst accesses, in place of the rows above:"]
            lines(self.seq_cst)
        for key, why in self.missing.items():
            out.append(f"  {key_text(key)}: no row: {why}")
        for key, why in self.seq_cst_missing.items():
            out.append(f"  seq_cst {key_text(key)}: no row: {why}")
        if self.notes:
            out += ["", self.notes]
        return "\n".join(out)


_ACCESS = {w for ws in ACCESS.values() for w in ws}


def _no_registers(r):
    raise ValueError("a scheme row names no register")


def machine_instr(word: str, access: dict, loc: int) -> dict:
    """One word of a row: the access itself, or a machine instruction read
    by the assembly parser (`x` in `LK x` is the accessed location)."""
    if word in _ACCESS:
        m = dict(access)
        if word.startswith("RMWL"):
            m["level"] = int(word[-1])
        return m
    m = parse_instruction(word, _no_registers, {"x": 0})
    if "loc" in m:
        m["loc"] = loc
    return m
