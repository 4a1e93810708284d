"""A lowered test as CUDA source: the test kernel (each test thread a
`__noinline__` function `hrf_P<n>` holding its PTX, so the compiled-code
check finds each thread's instructions by name; spare threads stress
memory), and the tally kernel (one thread per instance: reads the
outcome, counts it in the device histogram, resets the instance).

The source depends on the test alone: the launch's geometry, placement,
location layout and incantations are per-launch parameters (`P_*`), so
one compiled module serves every setting and every device.
"""

from __future__ import annotations

import os
import re
from dataclasses import fields
from pathlib import Path

from ..herdout import HERD_KIND, herd_name, log_variable
from ..litmus import ast as A
from ..litmus.printer import format_condition
from .lower import LoweredTest
from .placement import GEOMETRY_FIELDS, PLACEMENT_VALUES, Shape, compiled, geometry_c, inverse_c, resident_c
from .setting import PATTERNS, Setting

# per-launch parameters, in the order the host writes them
PARAMS = (
    "B",
    "W",
    "WT",
    "Y",
    "N",
    "PAD",
    "REGION",
    "BAINV",
    "BC",
    "WAINV",
    "WC",
    "LAINV",
    "LC",
    "STRESS_ITERS",
    "STRESS_MASK",
    "STRESS_PATTERN",
    "SYNC",
    "BANK",
    "SPIN",
)
# the per-launch parameters the setting gives (its fields by name, the stress
# pattern as its number, switches as 0 or 1): as PLACEMENT_VALUES, text that
# hrf run evaluates and the standalone driver compiles
SETTING_VALUES = {
    "STRESS_ITERS": "stress * stress_iters",
    "STRESS_MASK": "stress_words - 1",
    "STRESS_PATTERN": "stress_pattern",
    "SYNC": "sync",
    "BANK": "bank_conflicts",
    "SPIN": "spin",
}
SETTING_CODE = compiled(SETTING_VALUES)
POISON = 0xDEADBEEF
# tally counters
COUNTERS = ("timeouts", "filtered", "overflow", "missing")
HIST_LIMIT = 1 << 22  # keys of the device histogram


def n_params(lt: LoweredTest) -> int:
    return len(PARAMS) + 2 * len(lt.locations)


def layout(lt: LoweredTest) -> tuple[list[int], int]:
    """Each test thread's first word in an instance's result row, and the row's length."""
    offs, n = [], 0
    for th in lt.threads:
        offs.append(n)
        n += th.n_outputs
    return offs, n


def strides(lt: LoweredTest) -> tuple[list[int], int]:
    """The histogram key of an outcome: mixed radix over the variables' domains."""
    out, size = [], 1
    for d in lt.domains:
        out.append(size)
        size *= len(d)
    return out, size


def _c_array(values) -> str:
    return "{" + ", ".join(str(v) for v in values) + "}"


def _prop_c(p, index: dict) -> str:
    """A proposition over the outcome's values v[] as a C expression."""

    def var(x):
        if isinstance(x, int):
            return f"(int){x}"
        return f"(int)v[{index[x]}]"

    if isinstance(p, A.PTrue):
        return "1"
    if isinstance(p, A.PFalse):
        return "0"
    if isinstance(p, A.PAtom):
        return f"({var(p.var)} == {var(p.value)})"
    if isinstance(p, A.PCompare):
        return f"({var(p.left)} {p.op} {var(p.right)})"
    if isinstance(p, A.PNot):
        return f"(!{_prop_c(p.prop, index)})"
    if isinstance(p, A.PAnd):
        return "(" + " && ".join(_prop_c(q, index) for q in p.props) + ")"
    if isinstance(p, A.POr):
        return "(" + " || ".join(_prop_c(q, index) for q in p.props) + ")"
    raise TypeError(p)


def _indent(lines: list[str], n: int) -> str:
    return "\n".join(" " * n + line for line in lines)


def _asm_string(lines: list[str]) -> str:
    return "\n".join(f'        "{line}\\n\\t"' for line in lines)


def thread_function(lt: LoweredTest, k: int) -> str:
    """Test thread k as a function of its own (the code check finds it by
    name): the addresses come in computed, so that its memory instructions
    are the test's accesses and, last, the stores of its outputs."""
    th = lt.threads[k]
    outs = [f"o{n}" for n in range(th.n_outputs)]
    args = "".join(f"u32 *a{n}, " for n in range(len(th.locs))) + ("u32 bar, " if th.barriers else "")
    out_ops = ", ".join(f'"=r"({o})' for o in outs)
    in_ops = ", ".join(
        [f'"l"(a{n})' for n in range(len(th.locs))] + ['"r"(spin)'] + (['"r"(bar)'] if th.barriers else [])
    )
    stores = " ".join(f"out[{n}] = {o};" for n, o in enumerate(outs))
    addrs = ", ".join(f"a{n}" for n in range(len(th.locs))) or "nullptr"
    return f"""
// test thread {th.name}: {", ".join(f"a{n} = &{loc}" for n, loc in enumerate(th.locs)) or "no accesses"}; outputs {", ".join(th.outputs + ["time-out"])}
extern "C" __device__ __noinline__ void hrf_{th.name}({args}u32 spin, u32 *out) {{
#ifdef HRF_EMULATE  // hrf's check of the driver on a CPU (hrf_emulate.h): no PTX runs
    u32 *const addrs[] = {{{addrs}}};
    (void)spin;{" (void)bar;" if th.barriers else ""}
    hrf_emulate_thread({k}, out, addrs);
#else
    u32 {", ".join(outs)};{_in_step if th.barriers else ""}
    asm volatile(
{_asm_string(th.lines)}
        : {out_ops}
        : {in_ops}
        : "memory");
    {stores}
#endif
}}
"""


def _call(lt: LoweredTest, k: int, off: int, whole: bool = False) -> str:
    th = lt.threads[k]
    shared, mbars = _shared_lists(lt)
    slots = _shared_slots(lt)

    def address(n: int, loc: str) -> str:
        if whole and loc in lt.shared:  # a spare lane of the instance's warp: scratch, shared memory
            return f"spare ? hrf_opaque(hrf_spare + ((t % 32) * 8 + {n}) % {SPARE_WORDS}) : {instance(loc)}"
        if whole:  # a spare lane of the instance's warp: scratch memory
            return f"spare ? hrf_opaque(scratch + (((t % 32) * 8 + {n}) & P[P_STRESS_MASK])) : {instance(loc)}"
        return instance(loc)

    def instance(loc: str) -> str:
        if loc in lt.mbarriers:  # the instance's mbarrier, 8 bytes in its block's shared memory
            return f"hrf_opaque((u32 *)(hrf_mb + {mbars.index(loc)} * M + i % M))"
        if loc in lt.shared:  # the instance's copy in its block's shared memory
            base, stride = slots[loc]
            return f"hrf_opaque(hrf_sh + {base} + i % M * {stride})"
        return f"hrf_opaque(mem + {slot(lt, loc)})"

    addrs = "".join(f"{address(n, loc)}, " for n, loc in enumerate(th.locs)) + ("bar, " if th.barriers else "")
    return f"case {th.index}: hrf_{th.name}({addrs}P[P_SPIN], out + {off}); break;"


# a test placed in whole warps (CTA barriers): a named barrier waits for every lane of
# the warps it counts, and a warp whose lanes diverged passes it on a path of its own
# (ptxas puts it out of line, with a copy of the code after it: BRA.DIV). So the spare
# lanes of an instance's warp run its thread's code too, in step with it, on scratch
# memory; the instance's first named barrier is `bar` (the block's own is 0)
_in_step = """
    __syncwarp();  // the warp in step (its spare lanes run this code too): its barriers on the converged path"""
_whole_start = """
    const bool spare = role < 0;  // a spare lane of an instance's warp
    const u32 bar = 1 + (u32)(i % m) * HRF_NB;"""
_whole_out = "res + (spare ? P[P_N] : i) * HRF_ROW;  // a spare lane's: the row after the instances'"

# the shared-memory scratch of spare lanes in a warp kept in step (a word per lane and access)
SPARE_WORDS = 256

# the words of shared memory a block keeps per shared location: one per
# instance the block runs (at most 32 warps of 32 lanes)
SHARED_SLOTS = 1024


def slot(lt: LoweredTest, loc: str) -> str:
    """Where instance i keeps a location in `mem`: its region, shuffled, padded
    (`hrf_slot`); an array's element k, k words past its first's (placement
    pads an instance's copies to the array's words, aligned)."""
    k = lt.cell.get(loc, 0)
    return f"hrf_slot(P, {lt.locations.index(loc) - k}, i)" + (f" + {k}" if k else "")


def _shared_slots(lt: LoweredTest) -> dict:
    """Each shared location's (first word, words an instance) in the block's
    `hrf_sh`: one word, or 4 (16 aligned bytes) for a bulk copy's destination;
    an array's words (a power of two: a vector's address aligned to its
    size), its element k k words past its first."""
    out: dict = {}
    base = 0
    shared = _shared_lists(lt)[0]
    for n, loc in enumerate(shared):
        k = lt.cell.get(loc, 0)
        if k:  # an element past an array's first: in its first's row
            first, stride = out[shared[n - k]]
            out[loc] = (first + k, stride)
            continue
        stride = max(4 if loc in lt.bulk else 1, lt.rows.get(loc, 1))
        out[loc] = (base, stride)
        base += stride * SHARED_SLOTS
    return out


def _shared_lists(lt: LoweredTest) -> tuple[list[str], list[str]]:
    """(the shared locations that hold values, the mbarriers), in memory order."""
    shared = [loc for loc in lt.locations if loc in lt.shared and loc not in lt.mbarriers]
    return shared, [loc for loc in lt.locations if loc in lt.mbarriers]


def _mbarrier_decl(counts: list[int]) -> str:
    """The mbarriers' counts and their initialisation (a test with mbarriers alone)."""
    return f"""__constant__ u32 HRF_MB_COUNT[HRF_MB] = {_c_array(counts)};  // each mbarrier's count (0: uninitialised)
// an mbarrier initialised with its count (PTX's mbarrier.init), or left at 0
__device__ __forceinline__ void hrf_mbarrier_init(u64 *b, u32 count) {{
#ifdef HRF_EMULATE
    *b = count;
#else
    if (count) asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((u32)__cvta_generic_to_shared(b)), "r"(count) : "memory");
    else *b = 0;
#endif
}}
"""


# a test's CTAs in one cluster: its shared memory is reached from the cluster's other CTAs, so
# the phases are separated by a barrier of the whole cluster (a CTA then also outlives the
# accesses to its shared memory)
_cluster_sync = """#define hrf_sync() asm volatile("barrier.cluster.arrive.release;\\n\\tbarrier.cluster.wait.acquire;" ::: "memory")"""


def _cluster_rounds_code(lt: LoweredTest) -> str:
    """A test with cluster barriers: what a thread that runs no test thread
    does, as many times as the test threads of its block's CTA."""
    if not any(lt.cluster_rounds):
        return ""
    return f"""// per CTA group, the times its threads pass the cluster barrier: every thread of a cluster passes it
__constant__ u32 HRF_ROUNDS[HRF_K] = {_c_array(lt.cluster_rounds)};
__device__ __noinline__ void hrf_cluster_rounds(u32 rounds) {{
#ifdef HRF_EMULATE
    (void)rounds;
#else
    for (u32 n = 0; n < rounds; n++)
        asm volatile("barrier.cluster.arrive.relaxed;\\n\\tbarrier.cluster.wait;" ::: "memory");
#endif
}}
"""


def _shared_code(lt: LoweredTest, shape: Shape) -> tuple[str, str, str]:
    """(declarations, the kernel's start, its end) for the test's shared
    locations: each instance's copy in the block that runs the CTA holding
    it, set to its initial value before the test threads start and copied
    into the instance's global slot (which the tally reads) once they are
    done; a barrier of the whole block between (every thread reaches both).
    Empty without shared locations."""
    shared, mbars = _shared_lists(lt)
    if not shared and not mbars:
        return "", "", ""
    group = [shape.where(lt.shared[loc])[0] for loc in shared]
    slots = _shared_slots(lt)
    # spare lanes of a warp kept in step (a test with CTA barriers) write their shared accesses here
    spare = f"\n    __shared__ u32 hrf_spare[{SPARE_WORDS}];" if shape.whole else ""
    counts = [lt.mbarriers[b] or 0 for b in mbars]  # 0: a thread's mbarrier.init sets it
    decl = f"""#define HRF_SL {len(shared)}  // in shared memory: {", ".join(shared) or "(none)"}
#define HRF_MB {len(mbars)}  // mbarriers: {", ".join(mbars) or "(none)"}
__constant__ u32 HRF_SH_INIT[HRF_SL + 1] = {_c_array([f"{lt.init.get(loc, 0) & 0xFFFFFFFF}u" for loc in shared] + ["0u"])};
__constant__ u32 HRF_SH_LOC[HRF_SL + 1] = {_c_array([lt.locations.index(loc) for loc in shared] + [0])};
__constant__ u32 HRF_SH_CELL[HRF_SL + 1] = {_c_array([lt.cell.get(loc, 0) for loc in shared] + [0])};  // an array's element: words past its first
__constant__ u32 HRF_SH_GROUP[HRF_SL + 1] = {_c_array([*group, 0])};  // the CTA group holding each
__constant__ u32 HRF_SH_BASE[HRF_SL + 1] = {_c_array([slots[loc][0] for loc in shared] + [0])};  // its first word in hrf_sh
__constant__ u32 HRF_SH_STRIDE[HRF_SL + 1] = {_c_array([slots[loc][1] for loc in shared] + [1])};  // its words an instance (4: 16 bytes a bulk copy writes)
{_mbarrier_decl(counts) if mbars else ""}#ifdef HRF_EMULATE  // the kernel's phases, one pass each over the block's threads (hrf_emulate.h)
#define HRF_PHASE(k) if (hrf_emulated_phase == (k))
#define hrf_sync()
static const struct HrfPhases {{ HrfPhases() {{ hrf_test_phases = 3; }} }} hrf_phases;
#else
#define HRF_PHASE(k) if (1)
{_cluster_sync if lt.cluster else "#define hrf_sync() __syncthreads()"}
#endif

"""
    start = f"""
    __shared__ __align__(16) u32 hrf_sh[{max(sum(st for loc, (_, st) in slots.items() if not lt.cell.get(loc)), 1) * SHARED_SLOTS}];{spare}
{"    __shared__ u64 hrf_mb[HRF_MB * " + str(SHARED_SLOTS) + "];" + chr(10) if mbars else ""}    const u64 M = m;  // the instances this block runs, one copy each
    HRF_PHASE(0) {{
        for (u64 n = t; n < HRF_SL * M; n += blockDim.x) hrf_sh[HRF_SH_BASE[n / M] + n % M * HRF_SH_STRIDE[n / M]] = HRF_SH_INIT[n / M];
{"        for (u64 n = t; n < HRF_MB * M; n += blockDim.x) hrf_mbarrier_init(&hrf_mb[n], HRF_MB_COUNT[n / M]);" + chr(10) if mbars else ""}    }}
    hrf_sync();
    HRF_PHASE(1) {{"""
    end = """
    }
    hrf_sync();
    HRF_PHASE(2) {  // the final values into the instances' global slots, which the tally reads
        for (u64 n = t; n < HRF_SL * M; n += blockDim.x)
            if (HRF_SH_GROUP[n / M] == c)
                mem[hrf_slot(P, HRF_SH_LOC[n / M] - HRF_SH_CELL[n / M], j * M + n % M) + HRF_SH_CELL[n / M]] =
                    hrf_sh[HRF_SH_BASE[n / M] + n % M * HRF_SH_STRIDE[n / M]];
    }"""
    return decl, start, end


def source(lt: LoweredTest, shape: Shape) -> str:
    """The CUDA source of a lowered test."""
    test = lt.test
    offs, row = layout(lt)
    stride, hist = strides(lt)
    index = {v: n for n, v in enumerate(lt.variables)}
    wmax = max(shape.warps(c) for c in range(shape.k))
    smax = max(shape.lanes(c) for c in range(shape.k))
    roles = []
    for c in range(shape.k):
        rows = []
        for h in range(wmax):
            g = shape.groups[c][h] if h < shape.warps(c) else ()
            rows.append(_c_array([g[q] if q < len(g) else -1 for q in range(smax)]))
        roles.append("{" + ", ".join(rows) + "}")
    cond = format_condition(test.condition) if test.condition else "(none)"
    head = [
        f"// {test.name}: {os.path.basename(test.path) if test.path else '(no file)'}",
        f"// condition: {cond}",
        "// Generated by hrf (hrf run --emit-cuda): each test thread's code is its",
        "// inline PTX; the kernels take their geometry and incantations per launch.",
    ]
    params = "\n".join(f"#define P_{n} {k}" for k, n in enumerate(PARAMS))
    loc_names = ", ".join(lt.locations)
    reads = []
    for n, v in enumerate(lt.variables):
        if isinstance(v, A.RegVar):
            t = next(k for k, th in enumerate(lt.threads) if th.index == v.thread)
            reads.append(f"v[{n}] = r[{offs[t] + lt.threads[t].outputs.index(v.reg)}];  // {v}")
        else:
            reads.append(f"v[{n}] = mem[{slot(lt, v.loc)}];  // {v}")
    index_code = []
    for n, d in enumerate(lt.domains):
        cases = " ".join(f"case {x}u: d = {k}; break;" for k, x in enumerate(d))
        index_code.append(
            f"{{ u32 d = 0xffffffffu; switch (v[{n}]) {{ {cases} }} if (d == 0xffffffffu) other = 1; "
            f"else key += (u64)d * {stride[n]}ull; }}"
        )
    flags = " | ".join(f"(r[{offs[k] + th.n_outputs - 1}] != 0)" for k, th in enumerate(lt.threads))
    missing = " | ".join(f"(r[{offs[k] + th.n_outputs - 1}] == HRF_POISON)" for k, th in enumerate(lt.threads))
    resets = [f"mem[{slot(lt, loc)}] = {lt.init.get(loc, 0) & 0xFFFFFFFF}u;  // {loc}" for loc in lt.locations]
    filt = _prop_c(test.filter, index) if test.filter is not None else "1"
    cases = _indent([_call(lt, k, offs[k], shape.whole) for k in range(len(lt.threads))], 8)
    shared_decl, shared_start, shared_end = _shared_code(lt, shape)
    whole = shape.whole
    # a cluster: the CTA groups of an instance tuple are one cluster's blocks, ranked in order
    cluster_dims = f"__cluster_dims__({shape.k}, 1, 1) " if lt.cluster else ""
    # the cluster barrier waits for every thread of the cluster: the others pass it as often
    rounds = "\n        hrf_cluster_rounds(HRF_ROUNDS[c]);" if any(lt.cluster_rounds) else ""
    nv = max(len(lt.variables), 1)
    return f"""{chr(10).join(head)}
typedef unsigned int u32;
typedef unsigned long long u64;
#define HRF_T {len(lt.threads)}
#define HRF_K {shape.k}
#define HRF_NB {shape.barriers}  // named barriers an instance needs in one CTA
#define HRF_L {len(lt.locations)}  // {loc_names}
#define HRF_ROW {row}
#define HRF_V {len(lt.variables)}
#define HRF_NP {n_params(lt)}
#define HRF_HIST {hist}
#define HRF_POISON 0x{POISON:X}u
{params}
#define P_LOC_A {len(PARAMS)}
#define P_LOC_C ({len(PARAMS)} + HRF_L)

__constant__ u32 SC[HRF_K] = {_c_array(shape.lanes(c) for c in range(shape.k))};
__constant__ u32 WN[HRF_K] = {_c_array(shape.warps(c) for c in range(shape.k))};
__constant__ signed char HRF_ROLE[HRF_K][{wmax}][{smax}] = {_c_array(roles)};

// a pointer the compiler cannot see through: two accesses to one location keep two address
// registers, so that neither the compiler nor the assembler merges them
__device__ __forceinline__ u32 *hrf_opaque(u32 *p) {{
#ifdef HRF_EMULATE
    return p;
#else
    u32 *q;
    asm volatile("mov.b64 %0, %1;" : "=l"(q) : "l"(p));
    return q;
#endif
}}

{shared_decl}{_cluster_rounds_code(lt)}// where instance i keeps location `loc`: its region, shuffled, padded
__device__ __forceinline__ u64 hrf_slot(const u32 *P, u32 loc, u64 i) {{
    return (u64)loc * P[P_REGION] + (((u64)P[P_LOC_A + loc] * i + P[P_LOC_C + loc]) % P[P_N]) * P[P_PAD];
}}
{"".join(thread_function(lt, k) for k in range(len(lt.threads)))}
// a spare thread: stress memory ([GPU15] sec. 4), two accesses per iteration
__device__ __noinline__ void hrf_stress(u32 *scratch, const u32 *P, u64 b, u64 t) {{
    volatile u32 *s = scratch;
    const u32 mask = P[P_STRESS_MASK], pattern = P[P_STRESS_PATTERN];
    u32 a = (u32)((b * 977u + t * 131u) & mask), acc = 0;
    for (u32 it = 0; it < P[P_STRESS_ITERS]; it++) {{
        u32 a2 = (a + 32u * (it + 1)) & mask;
        if (pattern & 2) acc += s[a]; else s[a] = it;
        if (pattern & 1) acc += s[a2]; else s[a2] = it;
        a = (a + 64u) & mask;
    }}
    if (acc == 0xfffffffeu) s[0] = acc;  // keeps the loads
}}

extern "C" __global__ void {cluster_dims}hrf_test(u32 *mem, u32 *res, u32 *scratch, u32 *sync, const u32 *params, u32 launch) {{
    const u32 *P = params + (u64)launch * HRF_NP;
    const u64 b = blockIdx.x, t = threadIdx.x, K = HRF_K;
    const u64 B = P[P_B], W = P[P_W], WT = P[P_WT], Y = P[P_Y];
    const u64 BAINV = P[P_BAINV], BC = P[P_BC], WAINV = P[P_WAINV], WC = P[P_WC];
    const u64 LAINV = P[P_LAINV], LC = P[P_LC];
    const u64 NEED = {shape.need}, WHOLE = {int(shape.whole)}, CL = {int(shape.cluster)};  // the largest CTA's warps; whole warps; a cluster
    (void)K, (void)NEED;
    {inverse_c().replace(chr(10), chr(10) + "    ")}
    const int role = (live && q < {smax} && h < {wmax}) ? HRF_ROLE[c][h][q] : -1;{_whole_start if whole else ""}{shared_start}
    if ({"!live" if whole else "role < 0"}) {{{rounds}
        if (P[P_STRESS_ITERS]) hrf_stress(scratch, P, b, t);
    }} else {{
        if (P[P_BANK]) {{  // the warp's lanes all hit one shared-memory bank
            __shared__ volatile u32 bank[32 * 32];
            for (int n = 0; n < 8; n++) bank[(t % 32) * 32] += n;
        }}
        if (P[P_SYNC]{" && !spare" if whole else ""}) {{  // wait (bounded) until the instance's threads are all here
            atomicAdd(&sync[i], 1u);
            for (u32 n = 0; ((volatile u32 *)sync)[i] < HRF_T && n < (1u << 16); n++) {{}}
        }}
        u32 *out = {_whole_out if whole else "res + i * HRF_ROW;"}
        switch ({"spare ? HRF_ROLE[c][h][0] : role" if whole else "role"}) {{
{cases}
        }}
    }}{shared_end}
}}

// one thread per instance: count its outcome, reset it for the next launch
extern "C" __global__ void hrf_tally(u32 *mem, u32 *res, u32 *sync, const u32 *params, u32 launch,
                                     u64 *hist, u32 *ovf, u32 ovf_cap, u32 *counters) {{
    const u32 *P = params + (u64)launch * HRF_NP;
    const u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    u64 key = ~0ull;
    if (i < P[P_N]) {{
        u32 *r = res + i * HRF_ROW;
        u32 v[{nv}];
{_indent(reads, 8)}
        if ({missing or "0"}) {{
            atomicAdd(&counters[3], 1u);
        }} else if ({flags or "0"}) {{
            atomicAdd(&counters[0], 1u);
        }} else if (!({filt})) {{
            atomicAdd(&counters[1], 1u);
        }} else {{
            int other = 0;
            key = 0;
{_indent(index_code, 12)}
            if (other) {{
                u32 o = atomicAdd(&counters[2], 1u);
                if (o < ovf_cap) for (int n = 0; n < HRF_V; n++) ovf[(u64)o * HRF_V + n] = v[n];
                key = ~0ull;
            }}
        }}
        for (int n = 0; n < HRF_ROW; n++) r[n] = HRF_POISON;
{_indent(resets, 8)}
        sync[i] = 0;
    }}
    const u32 same = __match_any_sync(0xffffffffu, key);
    if (key != ~0ull && (threadIdx.x % 32) == (u32)(__ffs(same) - 1)) atomicAdd(&hist[key], (u64)__popc(same));
}}
"""


# ------------------------------------------------------------ the standalone driver
DRIVER_FILES = ("hrf_driver.h", "hrf_emulate.h")  # beside the emitted sources (gpu/driver/)


def driver_file(name: str) -> str:
    """The text of one of the driver's headers, shipped with the package."""
    return (Path(__file__).parent / "driver" / name).read_text(encoding="utf-8")


def _c_string(s: str) -> str:
    """A C string literal of s (UTF-8; quotes, backslashes and controls escaped)."""
    out = []
    for b in s.encode("utf-8"):
        ch = chr(b)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= b < 127:
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _dims(rows: list) -> str:
    """The inner dimension of `_c_rows(rows)`: its longest row's length, at least 1."""
    return f"[{max([len(r) for r in rows] + [1])}]"


def _c_rows(rows: list[list[int]] | list[list[str]], pad: str = "-1") -> str:
    """A two-dimensional C initialiser, rows padded with `pad` to one length (at least 1)."""
    width = max([len(r) for r in rows] + [1])
    return _c_array(_c_array([*r, *[pad] * (width - len(r))]) for r in rows) if rows else "{{" + pad + "}}"


def driver_tables(lt: LoweredTest, shape: Shape, setting: Setting) -> str:
    """What the standalone driver (driver/hrf_driver.h) knows of a test: its
    name and condition as the log prints them, the outcome's variables and
    their domains, the locations' initial values, the scope tree's lanes
    and warps, the condition's proposition, the setting to start from; and,
    for the driver's check on a CPU (HRF_EMULATE), where each thread's
    outputs and accesses go."""
    test = lt.test
    cond = A.condition_of(test)
    index = {v: n for n, v in enumerate(lt.variables)}
    stride, _ = strides(lt)
    nv = max(len(lt.variables), 1)
    names = [_c_string(log_variable(str(v))) for v in lt.variables] or ['""']
    out_var = [
        [index.get(A.RegVar(th.index, r), -1) for r in th.outputs] + [-1] for th in lt.threads
    ]  # the last output: the time-out flag
    access_loc = [[lt.locations.index(loc) for loc in th.locs] for th in lt.threads]
    access_words = [list(th.words) for th in lt.threads]
    loc_var = [index.get(A.LocVar(loc), -1) for loc in lt.locations] or [-1]
    values = []
    for f in fields(Setting):
        v = getattr(setting, f.name)
        values.append(PATTERNS.index(v) if f.name == "stress_pattern" else int(v))
    return f"""
#ifndef __CUDACC_RTC__  // the standalone driver (NVRTC, which hrf run uses, compiles the kernels alone)
// build and run: nvcc -O2 -arch=native -o {file_stem(test)} {file_stem(test)}.cu && ./{file_stem(test)} launches=1000
#define HRF_NAME {_c_string(herd_name(test.name))}
#define HRF_KIND "{HERD_KIND[cond.quantifier]}"
#define HRF_QUANTIFIER {("exists", "~exists", "forall").index(cond.quantifier)}  // 0 exists, 1 ~exists, 2 forall
#define HRF_CONDITION {_c_string(format_condition(cond))}
static const char *const HRF_VAR_NAME[{nv}] = {_c_array(names)};
static const unsigned HRF_DOMAIN_SIZE[{nv}] = {_c_array([len(d) for d in lt.domains] or [1])};
static const u32 HRF_DOMAIN[{nv}]{_dims(lt.domains)} = {_c_rows([[f"{x}u" for x in d] for d in lt.domains], "0u")};
static const u64 HRF_STRIDE[{nv}] = {_c_array([f"{x}ull" for x in stride] or ["1ull"])};
static const u32 HRF_INIT[{max(len(lt.locations), 1)}] = {_c_array([f"{lt.init.get(loc, 0) & 0xFFFFFFFF}u" for loc in lt.locations] or ["0u"])};
static const unsigned HRF_CELL[{max(len(lt.locations), 1)}] = {_c_array([lt.cell.get(loc, 0) for loc in lt.locations] or [0])};  // an array's element: words past its first
static const unsigned HRF_LANES[HRF_K] = {_c_array(shape.lanes(c) for c in range(shape.k))};
static const unsigned HRF_WARPS[HRF_K] = {_c_array(shape.warps(c) for c in range(shape.k))};
// the condition's proposition over an outcome
static int hrf_holds(const int *v) {{
    (void)v;
    return {_prop_c(cond.prop, index)};
}}
// the setting a run starts from ({setting.describe()})
#define HRF_SETTING {{{", ".join(f"{v}u" for v in values)}}}
#ifdef HRF_EMULATE  // per test thread: its outputs' variables (-1: none), its accesses' locations; each location's variable
static const int HRF_N_OUTPUTS[HRF_T] = {_c_array(th.n_outputs for th in lt.threads)};
static const int HRF_OUTPUT_VAR[HRF_T]{_dims(out_var)} = {_c_rows(out_var)};
static const int HRF_N_ACCESSES[HRF_T] = {_c_array(len(th.locs) for th in lt.threads)};
static const int HRF_ACCESS_LOC[HRF_T]{_dims(access_loc)} = {_c_rows(access_loc)};
static const int HRF_ACCESS_WORDS[HRF_T]{_dims(access_words)} = {_c_rows(access_words)};
static const int HRF_LOC_VAR[{len(loc_var)}] = {_c_array(loc_var)};
#endif
#define HRF_RESIDENT ({resident_c()})  // the blocks that fit (props, attr, s: hrf_driver.h's names)
#include "hrf_driver.h"
{geometry_c(shape)}{param_values_c()}#endif
"""


def setting_env(s: Setting) -> dict:
    """The names `SETTING_VALUES` reads: the setting's fields, as numbers."""
    return {
        f.name: PATTERNS.index(v) if f.name == "stress_pattern" else int(v)
        for f in fields(Setting)
        for v in [getattr(s, f.name)]
    }


def param_values_c() -> str:
    """`PLACEMENT_VALUES` and `SETTING_VALUES` as the standalone driver's
    `hrf_param_values`: one launch's parameters in the order of PARAMS."""
    used = {w for v in PLACEMENT_VALUES.values() for w in re.findall(r"[a-z_]+", v)}
    env = " ".join(f"const u64 {k} = g.{v};" for k, v in GEOMETRY_FIELDS if k in used)
    used = {w for v in SETTING_VALUES.values() for w in re.findall(r"[a-z_]+", v)}
    names = " ".join(f"const u64 {f.name} = s.{f.name};" for f in fields(Setting) if f.name in used)
    values = PLACEMENT_VALUES | SETTING_VALUES
    sets = "\n".join(f"    P[P_{k}] = (u32)({values[k].replace('inverse(', 'hrf_inverse(')});" for k in PARAMS)
    return f"""// one launch's parameters (gpu/placement.py's PLACEMENT_VALUES, cuda.py's SETTING_VALUES, as C)
static void hrf_param_values(u32 *P, const HrfGeometry &g, const HrfSetting &s, u64 n, u64 ba, u64 bc, u64 wa, u64 wc,
                             u64 la, u64 lc) {{
    {env}
    {names}
{sets}
}}
"""


def standalone(lt: LoweredTest, shape: Shape, setting: Setting) -> str:
    """The kernels and the driver's tables: a `.cu` that nvcc builds into a
    program running the test (with driver/hrf_driver.h beside it)."""
    return source(lt, shape) + driver_tables(lt, shape, setting)


def file_stem(test: A.Test) -> str:
    """The name of a test's emitted files: its name, letters kept."""
    keep = "".join(ch if ch.isalnum() or ch in "+-_." else "_" for ch in test.name)
    return keep or "test"
