"""vulkan-nochains: the Vulkan memory model with availability and
visibility chains of one operation only (`vulkan.py`, MODEL_NOCHAINS)."""

from .vulkan import MODEL_NOCHAINS as MODEL

__all__ = ["MODEL"]
