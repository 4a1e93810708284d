"""The executable grammars of the C/OpenCL and GPU_PTX syntaxes (lark,
LALR) and readers built on them: the reference hrf's own readers
(`hrf.litmus.opencl`, `hrf.litmus.ptx`) are tested against. Each builds
the AST with the package's builders, so the two readers can differ only
in what text they accept and where they place an error."""

from .opencl_lalr import parse_opencl
from .ptx_lalr import parse_ptx

__all__ = ["parse_opencl", "parse_ptx"]
