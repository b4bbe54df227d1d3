"""Building the trainer on the worker thread, gently for the window (no Qt here).

The first run imports torch (about a second of work, millions of objects); the factory keeps
that from freezing the GUI thread, and leaves one CPU core to the window.
"""

from __future__ import annotations

import gc
import os
from typing import Sequence

from engine.config import Config
from engine.data import GoldAnnotation, PinnedValue

from .torch_preload import prepare_cuda_context, preload_torch_libraries


def make_trainer_factory(corpus, vocabulary, config: Config, gold: Sequence[GoldAnnotation],
                         pins: Sequence[PinnedValue]):
    def make():
        # Importing torch and preparing the data allocate millions of objects; Python's full
        # garbage collections over them held the GIL for 50-170 ms each, freezing the window.
        # Collect nothing meanwhile, then freeze the survivors so later collections skip them.
        collecting = gc.isenabled()
        gc.disable()
        try:
            preload_torch_libraries()  # maps torch's libraries without holding the GIL
            if config.device != "cpu":
                prepare_cuda_context(_device_index(config.device))  # likewise the CUDA driver
            from engine.training import Trainer  # the torch import happens here, off the GUI thread

            leave_a_core_for_the_window()
            return Trainer(corpus, vocabulary, config, gold=gold, pins=pins)
        finally:
            if collecting:
                gc.freeze()
                gc.enable()

    return make


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




def describe_device(trainer) -> str:
    """The trainer's device in words for the status bar and the run record, e.g.
    ``cuda:0 (NVIDIA H200)`` or ``cpu``."""
    device = trainer.device
    if getattr(device, "type", str(device)) != "cuda":
        return str(device)
    try:
        import torch

        index = device.index if device.index is not None else torch.cuda.current_device()
        return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    except Exception:  # a name is a nicety; the device string is the fact
        return str(device)
