"""Every hyper-parameter of a run, in one documented object.

Defaults are the paper's (Luo et al. 2021, appendix "Training details") and, where the paper is
silent, the authors' code (configs ``FinalPgm`` on the ``tacl`` branch of j-luo93/xib); see
../docs/deviations-from-paper.md for the few places we differ.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from .errors import InputError


@dataclass(frozen=True)
class Config:
    # --- character mapping (paper §3.1.1; code: DenseFeatEmbedding, unit_aligner) ---
    feature_dim: int = 100
    """Size of each feature-group embedding; 7 groups are concatenated (700-d). Ugaritic: 35."""
    use_ipa_features: bool = True
    """False = ablation "-IPA": each known unit gets a free embedding of ``7 * feature_dim``."""
    dropout: float = 0.5
    """Dropout on the concatenated known-unit embedding, before L2 normalisation."""
    emb_norm: float = 1.0
    """Known-unit embeddings are scaled to this norm after dropout."""
    init_interval: float = 0.05
    """Parameters start uniform in [-init_interval, init_interval]."""
    temperature: float = 0.2
    """T in P(lost | known) = softmax(E_K . E_L / T)."""

    # --- edit-distance DP (paper §3.1.2; code: ExtractModel._get_matches) ---
    edit_mode: str = "softmin"
    """How a DP cell combines its edit operations: "softmin" (the authors' code: the
    softmin-weighted mean cost), "max" (the paper: best alignment) or "sum" (all alignments)."""
    band: int = 2
    """Only alignments with |i - j| <= band exist, so stem and span lengths differ by <= band."""
    insertion_cost_start: float = 0.0
    """gamma = -ln(alpha), the insertion penalty, annealed linearly from start to end."""
    insertion_cost_end: float = 3.5

    # --- word-boundary lattice (paper §3.1, appendix A; code: _run_ctc_v2) ---
    min_span: int = 4
    max_span: int = 10
    unmatched_prior: float = 0.5
    """Pr(O); the matched tags E_n share the rest uniformly."""
    reward_scale: float = 20.0
    """The code multiplies each span reward P(x|E)^(1/|x|) by 20."""
    segmented: bool = False
    """Whole-word spans only: each written word is one candidate span (the Ugaritic setting)."""
    max_chunk: int = 100
    """Longer runs between dividers are cut into pieces of at most this many units."""

    # --- objective (paper §3.2; code: ExtractTrainer) ---
    quality_weight: float = 10.0
    coverage_weight: float = 10.0
    coverage_start: float = 1.0
    """r_cov, annealed linearly from start to end (code: 1.0 -> 0.5; Iberian 1.0 -> 0.1)."""
    coverage_end: float = 0.5
    sound_loss_weight: float = 100.0
    """lambda_loss for Omega_loss; like quality and coverage it is divided by the batch's characters."""
    pin_weight: float = 10.0
    """Weight of -log P(lost | known) for every pinned value (the paper's partial/full models)."""
    likelihood_weight: float = 0.0
    """Weight of -log P(X); 0 in the authors' code."""

    # --- optimisation ---
    steps: int = 3000
    anneal_steps: int = 2000
    lr: float = 0.2
    clip_norm: float = 1.0
    chars_per_batch: int = 400
    sampling: str = "auto"
    """"ngram" (inverse n-gram frequency, with replacement, as the code), "sequential" (shuffled
    passes) or "auto" (sequential when segmented, else ngram)."""
    seed: int = 0
    device: str = "auto"
    eval_interval: int = 250

    # --- evaluation and reports ---
    top_k: int = 10
    score_normalisation: str = "span"
    """Length that divides log P(span|stem) when ranking stems (P@K, alternatives): "span" (the
    paper's phi = P(x|y)^(1/|x|)) or "stem" (the authors' offline dumps divided by |y|)."""

    def __post_init__(self) -> None:
        problems = []
        if self.edit_mode not in ("softmin", "max", "sum"):
            problems.append(f"edit_mode must be softmin, max or sum, not {self.edit_mode!r}")
        if self.sampling not in ("auto", "ngram", "sequential"):
            problems.append(f"sampling must be auto, ngram or sequential, not {self.sampling!r}")
        if self.score_normalisation not in ("stem", "span"):
            problems.append(f"score_normalisation must be stem or span, not {self.score_normalisation!r}")
        if not 1 <= self.min_span <= self.max_span:
            problems.append(f"need 1 <= min_span <= max_span, got {self.min_span}, {self.max_span}")
        if not 0 < self.unmatched_prior < 1:
            problems.append("unmatched_prior must lie strictly between 0 and 1")
        if self.temperature <= 0:
            problems.append("temperature must be positive")
        if not 0 <= self.dropout < 1:
            problems.append("dropout must lie in [0, 1)")
        if self.steps < 0 or self.anneal_steps < 0:
            problems.append("steps and anneal_steps must not be negative")
        if self.device not in ("auto", "cpu", "cuda") and not self.device.startswith("cuda:"):
            problems.append(f"device must be auto, cpu or cuda, not {self.device!r}")
        if problems:
            raise ValueError("; ".join(problems))

    # ---- schedules ----
    def _anneal(self, step: int, start: float, end: float) -> float:
        if self.anneal_steps <= 0:
            return end
        t = min(max(step, 0), self.anneal_steps) / self.anneal_steps
        return start + (end - start) * t

    def insertion_cost(self, step: int) -> float:
        return self._anneal(step, self.insertion_cost_start, self.insertion_cost_end)

    def coverage_target(self, step: int) -> float:
        return self._anneal(step, self.coverage_start, self.coverage_end)

    @property
    def resolved_sampling(self) -> str:
        if self.sampling == "auto":
            return "sequential" if self.segmented else "ngram"
        return self.sampling

    # ---- construction ----
    def replace(self, **changes: Any) -> "Config":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, path: str | Path | None = None) -> "Config":
        names = {f.name: f for f in fields(cls)}
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise InputError(f"unknown setting(s): {', '.join(unknown)}", path=path)
        clean = {}
        for key, value in data.items():
            ftype = names[key].type
            want = {"int": int, "float": float, "bool": bool, "str": str}.get(str(ftype), None)
            if want is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if want is not None and not isinstance(value, want):
                raise InputError(f"setting {key!r} must be {want.__name__}, not {value!r}", path=path)
            clean[key] = value
        try:
            return cls(**clean)
        except ValueError as e:
            raise InputError(str(e), path=path) from None

    @classmethod
    def from_toml(cls, path: str | Path, **overrides: Any) -> "Config":
        """Read a TOML file of settings (top level or a [config] table); unknown keys are errors."""
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise InputError("file not found", path=path) from None
        except tomllib.TOMLDecodeError as e:
            raise InputError(f"not valid TOML: {e}", path=path) from None
        if "config" in data and isinstance(data["config"], dict):
            data = data["config"]
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls.from_dict(data, path=path)

    def summary(self) -> str:
        """A short human-readable digest of the settings that differ from the defaults."""
        default = Config()
        diffs = [f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                 if getattr(self, f.name) != getattr(default, f.name)]
        return ", ".join(diffs) if diffs else "paper defaults"


#: Settings of the paper's Ugaritic–Hebrew comparison (code: FinalUgaReal).
UGARITIC = dict(feature_dim=35, min_span=3, max_span=10, insertion_cost_start=10.0, segmented=True)

#: Settings of the Iberian runs (code: FinalXib): coverage target annealed to 0.1.
IBERIAN = dict(min_span=3, coverage_end=0.1)

PRESETS = {"paper": {}, "ugaritic": UGARITIC, "iberian": IBERIAN}
