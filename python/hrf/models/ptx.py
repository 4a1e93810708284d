"""PTX, the model of Alglave et al., *GPU concurrency: weak behaviours and
programming assumptions* (ASPLOS 2015), Figs. 15 and 16 (transcribed in
reference/ptx-asplos15/PAPER-NOTES.md, sec. C.1): per-location coherence
without read-read pairs, no thin air, and RMO per scope with fences nested
membar.sys < membar.gl < membar.cta. Like herd's ptx.cat of 2015, RMWs are
atomic. The paper's fragment: ld, st, mov, add, and, setp, bra, membar,
with the .cg cache operator; hrf also runs the model on atom.* and other
cache operators, which the paper leaves out (results there are the model's,
not the paper's claim)."""

from ..dsl import F, I, Model, R, W, co, fr, int_, loc, po, rf, rmw, same_thread_attr, universal
from ..errors import UnsupportedFeature
from ..litmus import ast as AST
from .common import S_ALL, S_DEV, S_WG, addr, ctrl, data, refuse

com = rf | co | fr
# Fig. 15 l. 2-4: po-loc without read-read pairs (coRR is allowed).
po_loc_llh = (po & loc) & ((W * W) | (W * R) | (R * W))
dp = addr | data | ctrl  # the same union as common.dep, in the paper's order
rfe = rf - int_

# Fig. 16: membar.S as the relation "separated in po by a membar.S".
membar_cta, membar_gl, membar_sys = F & S_WG, F & S_DEV, F & S_ALL


def fenced(fences):
    return po >> I(fences) >> po


sys_fence = fenced(membar_sys)
gl_fence = fenced(membar_gl | membar_sys)
cta_fence = fenced(membar_cta | membar_gl | membar_sys)


def rmo(fence):
    return dp | fence | rfe | co | fr


same_cta, same_gl = same_thread_attr("wg"), same_thread_attr("dev")


def supports(test: AST.Test) -> None:
    if test.arch in ("PTX", "VULKAN"):
        # Dat3M's dialects: ld.acquire, st.release, fence.acq_rel, .cta/.gpu scopes
        # have no meaning in the 2015 model, which would read them as plain accesses
        raise UnsupportedFeature(
            f"ptx is [GPU15]'s model of 2015 PTX (GPU_PTX tests); this is a Dat3M {test.arch} test: "
            + ("use ptx-6.0 or ptx-7.5" if test.arch == "PTX" else "use vulkan"),
            test.path,
        )
    refuse(test, "the PTX model", barriers=True, remote=True)
    for t in test.threads:
        for op in t.ops:
            order = getattr(op, "order", None)
            # [GPU15]'s PTX has membar (a full fence) and relaxed atom, nothing ordered
            wanted = "sc" if isinstance(op, AST.Fence) else "rlx"
            if order is not None and order != wanted and test.arch != "GPU_PTX":
                what = "fences are membar (seq_cst)" if wanted == "sc" else "atomics are relaxed (atom)"
                raise UnsupportedFeature(
                    f"{t.name}: the PTX model has no memory_order {order}: its {what}",
                    test.path,
                    getattr(op, "line", None),
                )


# uniproc: sc_per_loc_llh keeps every po-loc pair with a write.
MODEL = Model("ptx", doc=__doc__, supports=supports, uniproc=True)
MODEL.acyclic(po_loc_llh | com, "sc_per_loc_llh")
MODEL.acyclic(dp | rf, "no_thin_air")
MODEL.acyclic(rmo(cta_fence) & same_cta, "cta_constraint")
MODEL.acyclic(rmo(gl_fence) & same_gl, "gl_constraint")
MODEL.acyclic(rmo(sys_fence) & universal, "sys_constraint")
MODEL.empty(rmw & (fr >> co), "rmw_atomicity")
