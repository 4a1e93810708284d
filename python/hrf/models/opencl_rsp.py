"""OpenCL+RSP ([RSP15], Wickerson et al. OOPSLA 2015): the OpenCL model with
remote scope promotion: a remote operation synchronises with any operation
its scope reaches (docs/readings.md, the artifact's opencl_rem.cat)."""

from .opencl_common import incl_remote, opencl_model

# A failing compare-exchange does not write back the value it read: the RSP
# artifact's herd (vinodgro/herdtools 9976d07, OpenCLSem.ml) comments the
# write-back out, and its lock tests rely on it (RSP_Test8: with write-back a
# failed CAS leaves `zero` = 1 and a later CAS takes the held lock).
MODEL = opencl_model("opencl-rsp", __doc__, incl_remote, remote=True, cas_writeback=False)
