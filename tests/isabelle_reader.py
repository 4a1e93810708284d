"""A small reader of Isabelle's outer syntax, for checking exported theories
without Isabelle. It reads what hrf writes and
the base theories: the header, commands, `begin`/`end` and `proof`/`qed`
nesting, the names each theory defines, and the identifiers of every term
and type, so that a test can ask whether each is defined somewhere."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# Constants and types of Isabelle's Main that the theories use.
MAIN_CONSTANTS = {
    "set",
    "map_of",
    "Id_on",
    "Set.filter",
    "acyclic",
    "irrefl",
    "fst",
    "snd",
    "prod.swap",
    "Some",
    "None",
    "True",
    "False",
    "Map.empty",
    "the",
    "concat",
    "map",
    "length",
    "Suc",
    "insert",
    "finite",
    "Cons",
    "Pair",
    "sorted_list_of_set",
    "of_bool",
    "Bit_Operations.and",
    "Bit_Operations.or",
    "Bit_Operations.xor",
    "map_option",
    "set_option",
    "Option.bind",
    "filter",
    "zip",
    "foldl",
    "fold",
    "int",
    "rel_option",
    "List.map_filter",
    "tl",
    "UNIV",
    "Domain",
    "trans",
    "mod",
    "distinct",
    "list_ex",
    "list_all",
    "take",
    "drop",
    "count_list",
    "replicate",
    "sum_list",
    "upt",
    "nth",
    "Collect",
    "image",
    "fun_upd",
    "THE",
    "SOME",
    "Max",
    "wf",
}
MAIN_TYPES = {"nat", "int", "bool", "set", "rel", "list", "option", "string"}
# Inner-syntax words that are not names.
INNER_KEYWORDS = {"if", "then", "else", "case", "of", "let", "in", "O", "where"}
BINDERS = {"\\<lambda>", "\\<forall>", "\\<exists>", "\\<Union>", "\\<Inter>", "\\<And>", "THE", "SOME"}
COMMANDS = {
    "theory",
    "imports",
    "begin",
    "end",
    "definition",
    "abbreviation",
    "fun",
    "primrec",
    "datatype",
    "record",
    "type_synonym",
    "lemma",
    "theorem",
    "corollary",
    "text",
    "section",
    "subsection",
    "subsubsection",
    "locale",
    "context",
    "proof",
    "qed",
    "by",
    "sorry",
    "oops",
    "done",
    "apply",
    "fix",
    "assume",
    "have",
    "show",
    "then",
    "obtain",
    "moreover",
    "ultimately",
    "unfolding",
    "using",
    "with",
    "from",
    "hence",
    "thus",
    "next",
    "fixes",
    "and",
    "where",
    "rule",
    "simp",
    "auto",
    "eval",
    "shows",
    "assumes",
    "notes",
}


class ReadError(Exception):
    pass


@dataclass
class Token:
    kind: str  # word, string, cartouche, comment, sym
    text: str
    line: int


def tokenize(src: str) -> list:
    """Outer-syntax tokens: words, "strings", cartouches (nested), comments
    (nested), and symbols; whitespace dropped."""
    out, i, line = [], 0, 1
    while i < len(src):
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("(*", i):
            j = _nested_end(src, i, "(*", "*)", line)
            out.append(Token("comment", src[i:j], line))
            line += src[i:j].count("\n")
            i = j
        elif src.startswith("\\<open>", i):
            j = _nested_end(src, i, "\\<open>", "\\<close>", line)
            out.append(Token("cartouche", src[i + 7 : j - 8], line))
            line += src[i:j].count("\n")
            i = j
        elif c == '"':
            j = i + 1
            while j < len(src) and src[j] != '"':
                j += 2 if src[j] == "\\" and src[j + 1] == '"' else 1
            if j >= len(src):
                raise ReadError(f"line {line}: unterminated string")
            out.append(Token("string", src[i + 1 : j], line))
            line += src[i:j].count("\n")
            i = j + 1
        elif c.isalpha():
            m = re.compile(r"[A-Za-z][A-Za-z0-9_'.]*").match(src, i)
            out.append(Token("word", m.group(0).rstrip("."), line))
            i += len(m.group(0).rstrip("."))
        elif src.startswith("\\<", i):
            j = src.index(">", i) + 1
            out.append(Token("sym", src[i:j], line))
            i = j
        else:
            out.append(Token("sym", c, line))
            i += 1
    return out


def _nested_end(src: str, i: int, opening: str, closing: str, line: int) -> int:
    """The end of the nested block (comment or cartouche) opened at i."""
    j, depth = i, 0
    while j < len(src):
        if src.startswith(opening, j):
            depth += 1
            j += len(opening)
        elif src.startswith(closing, j):
            depth -= 1
            j += len(closing)
            if depth == 0:
                return j
        else:
            j += 1
    raise ReadError(f"line {line}: unterminated {opening}")


def inner_tokens(s: str) -> list:
    """Inner-syntax tokens of a term or type: names (qualified too), numbers,
    ''string literals'', \\<symbols>, punctuation."""
    toks = []
    for m in re.finditer(
        r"''[^']*''|\\<\^?[A-Za-z]+>|'[a-z]+|[A-Za-z][A-Za-z0-9_']*(?:\.[A-Za-z][A-Za-z0-9_']*)*"
        r"|[0-9]+|:=|\.\.<|\S",
        s,
    ):
        toks.append(m.group(0))
    return toks


def is_name(t: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_'.]*", t)) and t not in INNER_KEYWORDS


def bound_names(toks: list) -> set:
    """Names a term binds: after a binder up to `.` or `\\<in>`; after `|`
    up to `.` (set builders) or `\\<Rightarrow>` (case patterns); after
    `of` up to `\\<Rightarrow>`; `let` names."""
    bound = set()
    i = 0
    while i < len(toks):
        t = toks[i]
        stops = None
        if t in BINDERS:
            stops = {".", "\\<in>"}
        elif t in ("|", "of"):
            stops = {".", "\\<Rightarrow>"}
        elif t == "{":
            # {(a, b). P}: a pattern of names, then a dot
            j = i + 1
            while j < len(toks) and (is_name(toks[j]) or toks[j] in ("(", ")", ",")):
                j += 1
            if j < len(toks) and toks[j] == "." and j > i + 1:
                bound.update(x for x in toks[i + 1 : j] if is_name(x))
        elif (t == "let" or (t == ";" and "let" in toks[:i])) and i + 1 < len(toks) and is_name(toks[i + 1]):
            bound.add(toks[i + 1])
        if stops:
            j = i + 1
            names = []
            while j < len(toks) and toks[j] not in stops and toks[j] not in ("|", "}"):
                if is_name(toks[j]):
                    names.append(toks[j])
                j += 1
            if j < len(toks) and toks[j] in stops:
                bound.update(names)
        i += 1
    return bound


@dataclass
class Theory:
    name: str
    imports: list
    path: Path
    constants: set = field(default_factory=set)
    interpretations: set = field(default_factory=set)
    types: set = field(default_factory=set)
    facts: set = field(default_factory=set)
    terms: list = field(default_factory=list)  # (line, text, parameters, closed: True, or None for a statement)
    type_strings: list = field(default_factory=list)  # (line, text)
    # names a proof binds (`fix x`, `obtain x where`, `define x`, `case (C x y)`),
    # allowed free in the statements of the hand-written theories
    locals: set = field(default_factory=set)


def read_theory(path: Path) -> Theory:
    """Read one .thy file; raise ReadError for a malformed header or unbalanced
    `begin`/`end`, `proof`/`qed`."""
    toks = [t for t in tokenize(Path(path).read_text()) if t.kind != "comment"]
    if len(toks) < 4 or toks[0].text != "theory" or toks[2].text != "imports":
        raise ReadError(f"{path}: no `theory X imports ... begin` header")
    name = toks[1].text
    if name != Path(path).stem:
        raise ReadError(f"{path}: theory {name} in a file named {Path(path).name}")
    i = 3
    imports = []
    while i < len(toks) and toks[i].text != "begin":
        imports.append(toks[i].text)
        i += 1
    if i == len(toks):
        raise ReadError(f"{path}: header without `begin`")
    th = Theory(name, imports, Path(path))
    stack = ["theory"]
    blocks: list = []  # the names of the locale and context blocks open
    block_name = None
    i += 1
    prev_cmd = None
    while i < len(toks):
        t = toks[i]
        if t.kind == "word":
            w = t.text
            if w == "begin":
                if prev_cmd not in ("context", "locale"):
                    raise ReadError(f"{path}:{t.line}: `begin` after {prev_cmd}")
                stack.append(prev_cmd)
                blocks.append(block_name)
                prev_cmd = None
            elif w == "end":
                if not stack or stack[-1] == "proof":
                    raise ReadError(f"{path}:{t.line}: `end` without a block")
                if stack[-1] in ("context", "locale"):
                    blocks.pop()
                stack.pop()
                if not stack and i != len(toks) - 1:
                    raise ReadError(f"{path}:{t.line}: text after the theory's `end`")
            elif w == "proof":
                stack.append("proof")
            elif w == "qed":
                if not stack or stack[-1] != "proof":
                    raise ReadError(f"{path}:{t.line}: `qed` without `proof`")
                stack.pop()
            elif w in ("context", "locale"):
                prev_cmd = w
                block_name = toks[i + 1].text
                if w == "locale":
                    th.constants.add(toks[i + 1].text)
                    j = i + 2
                    while j < len(toks) and toks[j].text != "begin":
                        if toks[j].text in ("fixes", "and") and toks[j + 1].kind == "word":
                            th.constants.add(toks[j + 1].text)
                        j += 1
            elif w == "interpretation" and toks[i + 2].text == ":":
                # interpretation q: loc ...: the locale's constants as q.c
                th.interpretations.add(toks[i + 1].text)
            elif w in ("definition", "abbreviation", "fun", "primrec"):
                th.constants.add(toks[i + 1].text)
                if blocks:  # a definition in a locale is also the locale's qualified constant
                    th.constants.add(f"{blocks[-1]}.{toks[i + 1].text}")
                i = _read_definition(th, toks, i, path)
                continue
            elif w in ("lemma", "theorem", "corollary"):
                j = i + 1
                if toks[j].kind == "word" and toks[j + 1].text == ":":
                    th.facts.add(toks[j].text)
                    j += 2
                if toks[j].kind == "string":
                    th.terms.append((toks[j].line, toks[j].text, set(), None))
                    j += 1
                # else: `assumes "..." shows "..."`, read as strings after those words
                i = j
                continue
            elif w == "datatype":
                i = _read_datatype(th, toks, i)
                continue
            elif w == "record":
                i = _read_record(th, toks, i)
                continue
            elif w == "type_synonym":
                j = i + 1
                while toks[j].kind == "word" and toks[j].text.startswith("'") or toks[j].text in ("(", ")", ","):
                    j += 1
                th.types.add(toks[j].text)
                th.type_strings.append((toks[j + 2].line, toks[j + 2].text))
                i = j + 3
                continue
            elif w in ("fix", "fixes", "obtain", "define"):
                j = i + 1
                while j < len(toks) and toks[j].kind == "word" and toks[j].text not in COMMANDS:
                    th.locals.add(toks[j].text)
                    j += 1
            elif w == "case" and i + 1 < len(toks) and toks[i + 1].text == "(":
                j = i + 3  # past `(` and the constructor
                while j < len(toks) and toks[j].text != ")":
                    th.locals.add(toks[j].text)
                    j += 1
            elif w in ("have", "show", "assume") or w in COMMANDS:
                pass
        elif (
            t.kind == "string"
            and i > 0
            and toks[i - 1].text in ("assume", "have", "show", "where", "assumes", "shows", "and")
        ):
            th.terms.append((t.line, t.text, set(), None))
        i += 1
    if stack:
        raise ReadError(f"{path}: unclosed {stack[-1]} at the end")
    return th


def _read_definition(th: Theory, toks: list, i: int, path) -> int:
    """definition / abbreviation / fun: `name :: "type" where "eq" | "eq" ...`."""
    j = i + 2
    if toks[j].text == ":":
        j += 1  # `::` is two symbols
    if toks[j].text == ":":
        j += 1
        th.type_strings.append((toks[j].line, toks[j].text))
        j += 1
    if toks[j].text != "where":
        raise ReadError(f"{path}:{toks[j].line}: expected `where` in the definition of {toks[i + 1].text}")
    j += 1
    while j < len(toks):
        if toks[j].kind == "cartouche" or toks[j].text in ("\\<comment>", "|"):
            j += 1
            continue
        if toks[j].kind != "string":
            break
        eq = toks[j].text
        it = inner_tokens(eq)
        # The left-hand side's names are its parameters (or patterns).
        lhs_end = next((k for k, x in enumerate(it) if x in ("=", "\\<longleftrightarrow>", "\\<equiv>")), 0)
        params = {x for x in it[1:lhs_end] if is_name(x)}
        th.terms.append((toks[j].line, eq, params, True))
        j += 1
    return j


def _read_datatype(th: Theory, toks: list, i: int) -> int:
    j = i + 1
    th.types.add(toks[j].text)
    j += 2  # name =
    expect_constructor = True
    while j < len(toks) and (toks[j].kind in ("word", "string") or toks[j].text == "|"):
        t = toks[j]
        if t.text == "|":
            expect_constructor = True
        elif t.kind == "word" and expect_constructor:
            if t.text in COMMANDS:
                break
            th.constants.add(t.text)
            expect_constructor = False
        elif t.kind == "word":
            if t.text in COMMANDS:
                break
            th.type_strings.append((t.line, t.text))
        else:
            th.type_strings.append((t.line, t.text))
        j += 1
    return j


def _read_record(th: Theory, toks: list, i: int) -> int:
    j = i + 1
    th.types.add(toks[j].text)
    j += 2  # name =
    while j + 3 < len(toks) and toks[j].kind == "word" and toks[j + 1].text == ":" and toks[j + 2].text == ":":
        th.constants.add(toks[j].text)
        th.type_strings.append((toks[j + 3].line, toks[j + 3].text))
        j += 4
    return j


def check_session(directory: Path) -> dict:
    """Read every theory of `directory` and its ROOT; raise ReadError for
    anything Isabelle would reject that this reader can see: unresolvable
    imports, a ROOT that misses a theory, undefined names in terms and
    types, free variables in the statements of generated lemmas."""
    directory = Path(directory)
    theories = {p.stem: read_theory(p) for p in sorted(directory.glob("*.thy"))}
    root = (directory / "ROOT").read_text()
    listed = re.findall(r"^\s{4}(\w+)\s*$", root, re.M)
    if set(listed) != set(theories):
        raise ReadError(f"ROOT lists {sorted(listed)}, the directory has {sorted(theories)}")
    # Imports resolve, and ROOT lists every theory after what it imports.
    for th in theories.values():
        for imp in th.imports:
            if imp == "Main":
                continue
            if imp not in theories:
                raise ReadError(f"{th.path.name}: imports {imp}, which is not in {directory}")
            if listed.index(imp) > listed.index(th.name):
                raise ReadError(f"ROOT lists {th.name} before {imp}, which it imports")

    def closure(name, seen=None):
        seen = seen if seen is not None else set()
        for imp in theories[name].imports:
            if imp != "Main" and imp not in seen:
                seen.add(imp)
                closure(imp, seen)
        return seen

    for th in theories.values():
        visible = [theories[n] for n in closure(th.name)] + [th]
        consts = set(MAIN_CONSTANTS).union(*(v.constants for v in visible))
        prefixes = set().union(*(v.interpretations for v in visible))
        consts |= {f"{q}.{c}" for q in prefixes for c in consts if "." not in c}
        types = set(MAIN_TYPES).union(*(v.types for v in visible))
        base = th.name.startswith("Hrf_")
        for line, text, params, closed in th.terms:
            # Definitions are closed; lemmas too, but in the hand-written base
            # theories, whose statements may have free (universal) variables.
            closed = closed or (closed is None and not base)
            toks = inner_tokens(text)
            bound = bound_names(toks) | params
            for k, t in enumerate(toks):
                free_ok = not closed and (_free_ok(t) or t in th.locals)
                annotation = k > 1 and toks[k - 2 : k] == [":", ":"] and t in types  # (a::nat)
                schematic = k > 0 and toks[k - 1] == "?"  # ?thesis
                if is_name(t) and t not in consts | bound and not (free_ok or annotation or schematic):
                    raise ReadError(f"{th.path.name}:{line}: {t} is not defined (in {text[:60]!r})")
        for line, text in th.type_strings:
            for t in inner_tokens(text):
                if is_name(t) and t not in types:
                    raise ReadError(f"{th.path.name}:{line}: type {t} is not defined (in {text!r})")
    return theories


def _free_ok(name: str) -> bool:
    """Free variables of a lemma in a hand-written theory (implicitly
    universally quantified): short names only, as the base theories use."""
    return len(name) <= 2 or name in ("wb",)
