"""Plain stochastic gradient descent, the paper's optimiser: each parameter minus the learning rate times
its gradient (no momentum, no weight decay).

This is what ``torch.optim.SGD(params, lr=lr)`` does with its defaults, to the bit (the same tensor calls:
one ``add_`` a parameter on the CPU, ``torch._foreach_add_`` when every parameter is on a GPU, as torch's
own default picks; tests/engine/test_sgd.py compares the two step by step), and its state dict has
torch's layout, so checkpoints written by either load in the other. It is ours because building any
``torch.optim`` optimiser imports ``torch._dynamo`` (torch 2.13: about 3 s of a process's start, paid by
every ``decipher run``, sweep worker and test process that trains, for a compiler the engine never uses).
"""

from __future__ import annotations

from typing import Iterable

import torch

#: the hyper-parameters torch.optim.SGD keeps in a param group, at its defaults (what a state dict holds)
TORCH_DEFAULTS = {"momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False, "maximize": False,
                  "foreach": None, "differentiable": False, "fused": None}


class SGD:
    """``param_groups``, ``zero_grad``, ``step``, ``state_dict`` and ``load_state_dict`` as torch.optim.SGD
    has them, for one group of parameters."""

    def __init__(self, params: Iterable[torch.Tensor], lr: float):
        params = list(params)
        if not params:
            raise ValueError("SGD got an empty parameter list")
        if not lr >= 0.0:
            raise ValueError(f"invalid learning rate: {lr}")
        self.param_groups = [{"params": params, "lr": lr, **TORCH_DEFAULTS}]

    def zero_grad(self, set_to_none: bool = True) -> None:
        """The gradients dropped (torch's default, set_to_none); zeroing them in place is not offered."""
        if not set_to_none:
            raise ValueError("SGD.zero_grad: only set_to_none=True")
        for p in self.param_groups[0]["params"]:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            if all(p.device.type == "cuda" for p in params):   # torch's default on GPUs: a fused call for
                kinds: dict = {}                                 # each device and dtype, as torch groups them
                for p in params:
                    kinds.setdefault((p.device, p.dtype), []).append(p)
                for same in kinds.values():
                    torch._foreach_add_(same, [p.grad for p in same], alpha=-group["lr"])
            else:
                for p in params:
                    p.add_(p.grad, alpha=-group["lr"])

    def state_dict(self) -> dict:
        """As torch.optim.SGD's: no per-parameter state, the group's settings, parameters by index."""
        group = self.param_groups[0]
        return {"state": {}, "param_groups": [{**{k: v for k, v in group.items() if k != "params"},
                                               "params": list(range(len(group["params"])))}]}

    def load_state_dict(self, state: dict) -> None:
        """A state dict of this class or of torch.optim.SGD at its defaults; ValueError if it is not one (another
        number of parameters, momentum or weight decay that this class would not apply)."""
        groups = state.get("param_groups") if isinstance(state, dict) else None
        if not isinstance(groups, list) or len(groups) != 1 or not isinstance(groups[0], dict):
            raise ValueError("the optimizer state has not one parameter group")
        saved = groups[0]
        if len(saved.get("params", ())) != len(self.param_groups[0]["params"]):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        if state.get("state"):
            raise ValueError("the optimizer state holds per-parameter state (momentum): not plain SGD")
        for key in ("momentum", "weight_decay"):
            if saved.get(key, 0) != 0:
                raise ValueError(f"the optimizer state has {key} {saved[key]}: not plain SGD")
        lr = saved.get("lr")
        if not isinstance(lr, (int, float)) or isinstance(lr, bool) or not lr >= 0.0:
            raise ValueError(f"the optimizer state's learning rate is not a number ≥ 0: {lr!r}")
        self.param_groups[0]["lr"] = float(lr)
