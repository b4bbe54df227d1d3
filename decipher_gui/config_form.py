"""What the run-settings form needs to know about engine.config.Config, read from its source:
each field's section, docstring and choices (no Qt)."""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import re
import textwrap
from dataclasses import dataclass

from engine.config import Config

#: Shown unfolded; every other field is in the collapsible "Advanced" section.
BASIC = ("steps", "eval_interval", "seed", "device", "segmented", "min_span", "max_span",
         "feature_dim", "chars_per_batch", "lr")

CHOICES = {
    "edit_mode": ("softmin", "max", "sum"),
    "sampling": ("auto", "ngram", "sequential"),
    "score_normalisation": ("stem", "span"),
    "device": ("auto", "cpu", "cuda"),
}

#: Help for the fields the engine leaves undocumented (the engine's docstrings win when present).
FALLBACK_DOCS = {
    "steps": "Training steps (batches) in the run.",
    "anneal_steps": "Steps over which the insertion cost and the coverage target move from start to end.",
    "lr": "Learning rate of the SGD optimiser.",
    "clip_norm": "Gradients are clipped to this norm (0 = no clipping).",
    "chars_per_batch": "Letters per training batch (padding included); smaller uses less memory.",
    "seed": "Random seed: the same seed, data and settings give the same run.",
    "device": "auto = CUDA when torch sees a GPU, else the CPU.",
    "eval_interval": "Evaluate the whole corpus (matches, P@K, closeness) every this many steps (0 = only at the end).",
    "top_k": "How many ranked stems each match keeps.",
    "min_span": "Shortest span (in letters) that can match a stem.",
    "max_span": "Longest span (in letters) that can match a stem.",
    "insertion_cost_end": "The insertion penalty at the end of annealing.",
    "quality_weight": "Weight of the matching quality term of the objective.",
    "coverage_weight": "Weight of the coverage term of the objective.",
    "coverage_end": "The coverage target r_cov at the end of annealing.",
}


@dataclass(frozen=True)
class FieldInfo:
    name: str
    type: str            # "int", "float", "bool", "str"
    default: object
    section: str
    doc: str
    choices: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.name.replace("_", " ")


@functools.lru_cache(maxsize=1)
def config_fields() -> tuple[FieldInfo, ...]:
    source = textwrap.dedent(inspect.getsource(Config))
    lines = source.splitlines()
    sections: dict[str, str] = {}
    current = "general"
    for line in lines:
        m = re.match(r"\s*# ---\s*(.+?)\s*(\(.*)?---", line)
        if m:
            current = m.group(1).strip()
            continue
        m = re.match(r"\s{4}(\w+)\s*:", line)
        if m:
            sections.setdefault(m.group(1), current)
    docs: dict[str, str] = {}
    body = ast.parse(source).body[0].body  # type: ignore[attr-defined]
    for node, nxt in zip(body, body[1:] + [None]):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if isinstance(nxt, ast.Expr) and isinstance(getattr(nxt, "value", None), ast.Constant) \
                    and isinstance(nxt.value.value, str):
                docs[node.target.id] = " ".join(nxt.value.value.split())
    out = []
    for f in dataclasses.fields(Config):
        out.append(FieldInfo(f.name, str(f.type), f.default, sections.get(f.name, "general"),
                             docs.get(f.name) or FALLBACK_DOCS.get(f.name, ""), CHOICES.get(f.name, ())))
    return tuple(out)
