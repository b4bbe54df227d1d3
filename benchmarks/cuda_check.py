"""Checks of the CUDA path (run on a GPU machine; the test suite never needs one).

    python -m benchmarks.cuda_check

1. The prefix-shared edit DP gives the same values and gradients on CUDA as on the CPU.
2. The lattice (compiled passes fed from CUDA tensors) gives the same gradients as the torch loop on CUDA.
3. A short training run on CUDA: finite losses and a working evaluation.
3b. The trainer's SGD (engine/training/sgd.py) takes the same steps as torch.optim.SGD, to the bit.
4. Reduced precision: how far bfloat16 / float16 DP scores fall from float32, and whether the
   ranking of stems changes (it decides whether mixed precision may be used).
Prints one JSON object.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    dry = "--cpu-dry-run" in sys.argv      # exercise this script's logic without a GPU
    if not torch.cuda.is_available() and not dry:
        print(json.dumps({"cuda": False}))
        return 1
    from engine.model.alignment import NEG
    from engine.config import Config
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_gold, read_known, read_lost
    from engine.model.lattice import forward_sums
    from engine.model.trie_alignment import StemTrie, trie_span_log_probs
    from engine.training.trainer import Trainer

    dev = torch.device("cpu" if dry else "cuda")
    out: dict = {"device": "cpu (dry run)" if dry else torch.cuda.get_device_name(dev), "torch": torch.__version__}

    # 1. edit DP
    g = torch.Generator().manual_seed(0)
    K, C, V, S = 30, 26, 600, 300
    logits = torch.randn(K, C, generator=g, dtype=torch.float64)
    lens = torch.randint(4, 11, (V,), generator=g)
    units = torch.randint(1, K, (V, 10), generator=g)
    units[::3, :3] = units[0, :3]
    windows = torch.randint(1, C, (S, 10), generator=g)
    trie = StemTrie.build(units, lens)
    res = []
    for d in (torch.device("cpu"), dev):
        x = logits.detach().clone().to(d).requires_grad_(True)
        sc = trie_span_log_probs(torch.log_softmax(x, 1), trie.to(d), windows.to(d), range(4, 11), 1.5)
        w = torch.where(sc > NEG / 2, torch.ones_like(sc), torch.zeros_like(sc))
        (sc * w).sum().backward()
        res.append((sc.detach().cpu(), x.grad.cpu()))
    x = logits.detach().clone().to(dev).requires_grad_(True)    # the eager path on the same device
    sc = trie_span_log_probs(torch.log_softmax(x, 1), trie.to(dev), windows.to(dev), range(4, 11), 1.5, static=False)
    (sc * torch.where(sc > NEG / 2, 1.0, 0.0)).sum().backward()
    out["graphs_vs_eager_max_abs_diff"] = float((sc.detach().cpu() - res[1][0]).abs().max())
    out["graphs_vs_eager_grad_max_abs_diff"] = float((x.grad.cpu() - res[1][1]).abs().max())
    out["edit_dp_max_abs_diff"] = float((res[0][0] - res[1][0]).abs().max())
    out["edit_dp_grad_max_abs_diff"] = float((res[0][1] - res[1][1]).abs().max())

    # 2. lattice
    emit = (torch.randn(8, 101, 7, dtype=torch.float64, device=dev) - 2).requires_grad_(True)
    rew = torch.randn(8, 101, 7, dtype=torch.float64, device=dev).requires_grad_(True)
    lengths = torch.randint(20, 101, (8,), device=dev)
    grads = []
    for compiled in (False, True):
        s = forward_sums(emit, rew, lengths, list(range(4, 11)), -3.0, compiled=compiled)
        loss = s.log_px.sum() + s.quality.sum() + 0.5 * s.coverage.sum()
        grads.append(torch.autograd.grad(loss, [emit, rew]))
    out["lattice_grad_max_abs_diff"] = max(float((a - b).abs().max()) for a, b in zip(*grads))

    # 3. a short training run on the bundled Gothic sample
    data = ROOT / "tests" / "data" / "gothic"
    ins = read_lost(data / "lost.csv")
    trainer = Trainer(Corpus("g", tuple(ins)), Vocabulary("pgm", tuple(read_known(data / "known.csv"))),
                      Config(steps=200, eval_interval=0, device=dev.type, seed=0),
                      gold=read_gold(data / "gold.csv", inscriptions=ins), live_interval=None)
    t0 = time.perf_counter()
    losses = [e.losses["total"] for e in trainer.run() if hasattr(e, "losses")]
    out["train_200_steps_s"] = round(time.perf_counter() - t0, 2)
    out["train_losses_finite"] = all(map(lambda v: v == v and abs(v) < 1e6, losses))
    out["train_p_at_10"] = trainer.last_evaluation.metrics["p_at_10"]

    # 3b. the trainer's own SGD (engine/training/sgd.py) against torch.optim.SGD on this device, step by step
    from engine.training.sgd import SGD

    sides = [[torch.randn(40, 9, generator=torch.Generator().manual_seed(1)).to(dev).requires_grad_()]
             for _ in range(2)]
    opts = [SGD(sides[0], lr=0.3), torch.optim.SGD(sides[1], lr=0.3)]
    for step in range(20):
        for opt, ps in zip(opts, sides):
            opt.zero_grad()
            (ps[0].sin() * (step + 1)).pow(2).sum().backward()
            opt.step()
    out["sgd_equals_torch_sgd"] = bool(torch.equal(sides[0][0], sides[1][0]))

    # 4. reduced precision of the DP scores
    # (float16 cannot even hold the -1e9 that stands for log 0, so only bfloat16 is a candidate)
    torch.set_grad_enabled(False)
    lp = torch.log_softmax(logits.float().to(dev), 1)
    ref = trie_span_log_probs(lp, trie.to(dev), windows.to(dev), range(4, 11), 1.5)
    ok = ref > NEG / 2
    for dtype in (torch.bfloat16,):
        low = trie_span_log_probs(lp.to(dtype), trie.to(dev), windows.to(dev), range(4, 11), 1.5).float()
        diff = (low - ref).abs()[ok]
        top_ref = ref.masked_fill(~ok, -1e30).argmax(0)
        top_low = low.masked_fill(~ok, -1e30).argmax(0)
        out[f"{dtype}_max_abs_diff"] = float(diff.max())
        out[f"{dtype}_top1_changed_share"] = float((top_ref != top_low).float().mean())
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
