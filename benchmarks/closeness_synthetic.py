"""The controlled closeness experiment: a synthetic lost text made from a source vocabulary,
compared against the source itself, a heavy-sound-change relative of it and an unrelated
vocabulary, each with its null vocabularies, over several seeds (docs/closeness.md).

    python -m benchmarks.closeness_synthetic                       # the documented setting
    python -m benchmarks.closeness_synthetic --seeds 0 1 2 --null 3 --steps 200 --out DIR

Prints one line per candidate and signal (score, mapping and decoding consistency) and writes
the comparison's files (runs.csv, summary.csv, closeness.png, …) to --out when given.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Sequence

from engine.comparison import Comparison, compare
from engine.config import Config
from engine.synthetic import make_cipher
from engine.synthetic_relatives import HEAVY, sound_change, unrelated_vocabulary

#: A test-sized training (a few seconds a run on one CPU core).
CONFIG = dict(feature_dim=8, steps=200, anneal_steps=120, eval_interval=0, min_span=3, max_span=6)


def setting(n_stems: int = 30, n_inscriptions: int = 40, cipher_seed: int = 2) -> tuple:
    """(lost corpus, {candidate: vocabulary}): source, its heavy relative, an unrelated vocabulary."""
    cipher = make_cipher(n_stems=n_stems, n_inscriptions=n_inscriptions, seed=cipher_seed)
    source = cipher.vocabulary
    candidates = {
        "source": source,
        "relative": sound_change(source, seed=cipher_seed, strength=HEAVY, language="relative"),
        "unrelated": unrelated_vocabulary(len(source.stems), seed=cipher_seed, avoid=source.stems),
    }
    return cipher, candidates


def run(*, seeds: Sequence[int] = (0, 1, 2), n_null: int = 3, steps: int = 200, names: Sequence[str] | None = None,
        out=None, n_stems: int = 30, n_inscriptions: int = 40, cipher_seed: int = 2, quiet: bool = True
        ) -> Comparison:
    cipher, candidates = setting(n_stems, n_inscriptions, cipher_seed)
    if names:
        candidates = {k: v for k, v in candidates.items() if k in names}
    cfg = Config(**{**CONFIG, "steps": steps, "anneal_steps": int(steps * 0.6)})
    t0 = time.perf_counter()

    def progress(rec):
        if not quiet:
            print(f"  {rec.item.known} seed {rec.item.seed} null {rec.item.null}: score {rec.score:.3f} "
                  f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)

    return compare(cipher.corpus, candidates, seeds=seeds, n_null=n_null, config=cfg, out=out, on_run=progress,
                   plot=out is not None)


def report(c: Comparison) -> str:
    lines = [c.plan.matching.describe(), "candidate  signal    real    null mean  null sd      z  verdict"]
    for s in c.summaries:
        lines.append(f"{s.known:10s} score    {s.score_mean:.3f}±{s.score_sd:.3f}  {s.null_mean:.3f}  "
                     f"{s.null_sd:.3f}  {s.z:6.1f}  {s.verdict}")
        for label, sig in (("mapping", s.mapping), ("decoding", s.decoding)):
            if sig is not None:
                lines.append(f"{'':10s} {label:8s} {sig.value:.3f}        {sig.null_mean:.3f}  {sig.null_sd:.3f}  "
                             f"{sig.z:6.1f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--null", type=int, default=3)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--candidates", nargs="+", choices=["source", "relative", "unrelated"])
    p.add_argument("--stems", type=int, default=30, help="stems of the source vocabulary")
    p.add_argument("--inscriptions", type=int, default=40)
    p.add_argument("--cipher-seed", type=int, default=2)
    p.add_argument("--out")
    a = p.parse_args(argv)
    c = run(seeds=a.seeds, n_null=a.null, steps=a.steps, names=a.candidates, out=a.out, n_stems=a.stems,
            n_inscriptions=a.inscriptions, cipher_seed=a.cipher_seed, quiet=False)
    print(report(c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
