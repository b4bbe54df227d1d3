"""Building the trainer on a thread of a process that also runs a window, gently (no Qt here).

The app no longer needs this: its runs train in a child process (decipher_gui/runprocess.py),
which calls engine.session.build_trainer directly. It is kept for benchmarks/gui_worker_check.py,
which measures the Qt-free in-process path on a GPU machine, and for the GUI tests' fixture that
restores torch's thread count (tests/gui/conftest.py).
"""

from __future__ import annotations

import gc
import os

from engine.session import RunInputs, build_trainer, describe_device

from .torch_preload import prepare_cuda_context, preload_torch_libraries


def gentle_build(inputs: RunInputs, **options):
    """engine.session.build_trainer, with the window's niceties around it (the session's ``build``)."""
    # Importing torch and preparing the data allocate millions of objects; Python's full
    # garbage collections over them held the GIL for 50-170 ms each, freezing the window.
    # Collect nothing meanwhile, then freeze the survivors so later collections skip them.
    collecting = gc.isenabled()
    gc.disable()
    try:
        preload_torch_libraries()  # maps torch's libraries without holding the GIL
        device = inputs.overrides.get("device", inputs.config.device) if inputs.resume else inputs.config.device
        if device != "cpu":
            prepare_cuda_context(_device_index(device))  # likewise the CUDA driver
        leave_a_core_for_the_window()  # the torch import happens here, off the GUI thread
        return build_trainer(inputs, **options)
    finally:
        if collecting:
            gc.freeze()
            gc.enable()


def _device_index(device: str) -> int:
    head, _, index = device.partition(":")
    return int(index) if head == "cuda" and index.isdigit() else 0


_threads_before: int | None = None


def leave_a_core_for_the_window() -> None:
    """Let torch's intra-op pool use all cores but one, so the GUI thread always finds a free one
    (the model's tensors are small; an extra thread buys little). OMP_NUM_THREADS wins if set."""
    global _threads_before
    import torch

    if os.environ.get("OMP_NUM_THREADS"):
        return
    cores = os.cpu_count() or 1
    if cores > 1 and torch.get_num_threads() >= cores:
        _threads_before = torch.get_num_threads()
        torch.set_num_threads(cores - 1)


def restore_torch_threads() -> None:
    """Undo leave_a_core_for_the_window (for tests sharing a process with other torch code)."""
    global _threads_before
    if _threads_before is not None:
        import torch

        torch.set_num_threads(_threads_before)
        _threads_before = None


__all__ = ["gentle_build", "describe_device", "leave_a_core_for_the_window", "restore_torch_threads"]
