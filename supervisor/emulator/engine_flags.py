"""The emulated engine's code paths, as plain constants and functions a source patch can change.

This module stands for SGLang's own checks (``sglang/srt/layers/communicator.py``): FlashInfer's
fused all-reduce + residual RMSNorm is used only on the GPU architectures listed here. The
emulated node is the seed's: SM120 GPUs on PCIe, where the fusion is off. The demo's
``flashinfer_fusion`` change is a two-line source patch of this file that adds SM120, as the
seed's patch of SGLang did; the fused one-shot all-reduce then waits for peers whose flags never
arrive over PCIe, and CUDA-graph capture spins in the collective.

Keep these as plain assignments: patches (profiles/demo/patches/*.diff) match their lines.
"""

from __future__ import annotations

EMULATED_SM = 120                 # compute capability of the emulated GPUs (x10)
EMULATED_INTERCONNECT = "pcie"    # no NVLink: IPC one-shot all-reduce flags do not propagate

# The architectures FlashInfer's all-reduce fusion is enabled for.
FLASHINFER_ALLREDUCE_FUSION_SM = (90, 100)


def use_flashinfer_allreduce_fusion(requested: bool, tp_size: int) -> bool:
    """The fused path: asked for (--enable-flashinfer-allreduce-fusion), TP > 1, and an
    architecture the fusion is enabled for; otherwise the plain all-reduce runs."""
    return requested and tp_size > 1 and EMULATED_SM in FLASHINFER_ALLREDUCE_FUSION_SM


def fused_allreduce_hangs() -> bool:
    """The fused all-reduce exchanges flags through IPC buffers that PCIe peers never see."""
    return EMULATED_INTERCONNECT == "pcie"
