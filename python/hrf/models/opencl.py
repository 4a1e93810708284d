"""OpenCL 2.0 ([BDW16] App. C; POPL 2016): scoped C11 with exact scope
inclusion, global and local happens-before, barriers and barrier
divergence, the scoped SC axiom, data races."""

from .opencl_common import incl_exact, opencl_model

MODEL = opencl_model("opencl", __doc__, incl_exact, remote=False)
