"""vulkan-dat3m: `vulkan` with from-read as Dat3M's vulkan.cat
defines it (`vulkan.py`, MODEL_DAT3M; docs/readings.md)."""

from .vulkan import MODEL_DAT3M as MODEL

__all__ = ["MODEL"]
