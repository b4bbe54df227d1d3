"""engine/training/sgd.py: the trainer's plain SGD is torch.optim.SGD at its defaults, to the bit, and reads and
writes the same state dicts, without importing torch._dynamo."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from engine.training.sgd import SGD


def _params(seed: int) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(7, 5, generator=g, dtype=torch.float32).requires_grad_(),
            torch.randn(11, generator=g, dtype=torch.float64).requires_grad_()]


def _loss(params: list[torch.Tensor], step: int) -> torch.Tensor:
    a, b = params
    return (a.sin() * (step + 1)).pow(2).sum() + (b.exp() / (step + 2)).sum().to(torch.float32)


def test_steps_equal_torch_sgd_bit_for_bit_with_the_learning_rate_changing_each_step():
    ours, theirs = _params(0), _params(0)
    mine, ref = SGD(ours, lr=0.5), torch.optim.SGD(theirs, lr=0.5)
    for step in range(25):
        for opt, ps in ((mine, ours), (ref, theirs)):
            opt.zero_grad(set_to_none=True)
            _loss(ps, step).backward()
            for group in opt.param_groups:
                group["lr"] = 0.5 / (1 + step)
            opt.step()
        for x, y in zip(ours, theirs):
            assert torch.equal(x, y), step
    assert all(p.grad is not None for p in ours)
    mine.zero_grad()
    assert all(p.grad is None for p in ours)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (the fused path)")
def test_on_a_gpu_the_fused_steps_equal_torch_sgd_bit_for_bit():
    ours = [p.detach().cuda().requires_grad_() for p in _params(3)]
    theirs = [p.detach().cuda().requires_grad_() for p in _params(3)]
    mine, ref = SGD(ours, lr=0.5), torch.optim.SGD(theirs, lr=0.5)
    for step in range(10):
        for opt, ps in ((mine, ours), (ref, theirs)):
            opt.zero_grad()
            _loss(ps, step).backward()
            opt.step()
        assert all(torch.equal(x, y) for x, y in zip(ours, theirs)), step


def test_a_parameter_without_a_gradient_is_left_as_it_is():
    ps = _params(1)
    before = [p.detach().clone() for p in ps]
    opt = SGD(ps, lr=0.1)
    ps[0].sum().backward()
    opt.step()
    assert not torch.equal(ps[0], before[0]) and torch.equal(ps[1], before[1])


def test_state_dicts_load_both_ways_and_a_wrong_one_is_refused():
    ours, theirs = _params(2), _params(2)
    mine, ref = SGD(ours, lr=0.3), torch.optim.SGD(theirs, lr=0.3)
    assert mine.state_dict() == ref.state_dict()
    ref.param_groups[0]["lr"] = 0.07
    mine.load_state_dict(ref.state_dict())
    assert mine.param_groups[0]["lr"] == pytest.approx(0.07)
    mine.param_groups[0]["lr"] = 0.11
    ref.load_state_dict(mine.state_dict())
    assert ref.param_groups[0]["lr"] == pytest.approx(0.11)
    with pytest.raises(ValueError, match="size"):
        SGD(ours[:1], lr=0.1).load_state_dict(ref.state_dict())
    momentum = torch.optim.SGD(_params(2), lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="momentum"):
        mine.load_state_dict(momentum.state_dict())
    with pytest.raises(ValueError):
        mine.load_state_dict({"state": {}, "param_groups": [{"lr": "fast", "params": [0, 1]}]})
    with pytest.raises(ValueError):
        SGD([], lr=0.1)


def test_training_and_its_checkpoint_do_not_import_the_compiler(tmp_path):
    code = ("import sys\n"
            "from engine.config import Config\n"
            "from engine.datasets.synthetic import make_cipher\n"
            "from engine.training.trainer import Trainer, load_checkpoint\n"
            "c = make_cipher(n_stems=12, n_inscriptions=10, seed=2)\n"
            "cfg = Config(feature_dim=8, steps=3, anneal_steps=3, eval_interval=0, seed=0)\n"
            "t = Trainer(c.corpus, c.vocabulary, cfg)\n"
            "for _ in t.run(): pass\n"
            f"t.save_checkpoint({str(tmp_path / 'c.pt')!r})\n"
            f"Trainer(c.corpus, c.vocabulary, cfg, state=load_checkpoint({str(tmp_path / 'c.pt')!r}))\n"
            "print(t.step, 'torch._dynamo' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "False"]      # with torch.optim.SGD: True (torch 2.13)
