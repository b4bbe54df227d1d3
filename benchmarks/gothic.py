"""The paper's Gothic grid (Tables 2 and 3, the ablation): a resumable runner and the table renderer.

    python -m benchmarks.gothic --plan                          # what would run (the issue's grid)
    python -m benchmarks.gothic --workers 2 --known pg --wr 0   # run a selection, appending rows
    python -m benchmarks.gothic --render                        # tables into docs/benchmarks.md

One row per finished run is appended to benchmarks/results/gothic.csv (columns ``COLUMNS``);
rows already there are skipped, so an interrupted grid resumes. The per-run work is
:func:`run_cell`, a function of plain arguments, so another scheduler can call it too.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "gothic.csv"
CACHE = ROOT / "benchmarks" / ".cache" / "gothic"
PRIORS = ROOT / "resources" / "priors"
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- gothic-tables:begin -->", "<!-- gothic-tables:end -->"

COLUMNS = ("known", "wr", "variant", "schedule", "seed", "ablation", "p_at_10", "p_at_10_strict", "steps",
           "wall_s", "device")
KEY = COLUMNS[:6]
#: beside the results CSV: one JSON line per run with what issue 30 reports (search_record)
SEARCH_FILE = "gothic-search.jsonl"

#: our known-language codes -> the dataset builder's
KNOWN = {"pg": "pgm", "on": "non", "oe": "ang"}
WRS = ("0", "0.25", "0.5", "0.75", "1")
VARIANTS = ("base", "partial", "full")
#: annealing schedule of the insertion cost gamma: name -> (start, end)
SCHEDULES = {"0-3.5": (0.0, 3.5), "10-3.5": (10.0, 3.5)}
#: ablation name -> settings it changes (paper Table 4; code: dense_embedding=False, bij_reg_hyper=0)
ABLATIONS = {"none": {}, "no_ipa": {"use_ipa_features": False}, "no_loss": {"sound_loss_weight": 0.0}}
#: Search trials (issue 30), run on the base model at WR 0 and 100 %, schedule 0-3.5, main seeds; in the
#: CSV's ablation column. ``vowel_weight``: Omega_loss counts known vowels' rows by the lost vowel
#: letters over the known vowel units (setting vowel_weight = 0: ON 0.5, OE 0.6, PG 0.75; the authors'
#: knob, "helped on ON"); ``class_init``: the search starts from the letters' contextual classes;
#: ``vowel_class``: both; ``lr``: learning rate 0.5 instead of the paper's 0.2 (what let the Linear B
#: syllable model find the signs' onsets from most starts: docs/benchmarks.md, "Linear B read from its signs");
#: ``class_restart``: two whole starts, the paper's and one from the letters' classes, the lower objective
#: kept (restarts 2, restart_class_init 0.05; twice a run's cost).
TRIALS = {"vowel_weight": {"vowel_weight": 0.0}, "class_init": {"class_init": 0.05},
          "vowel_class": {"vowel_weight": 0.0, "class_init": 0.05}, "lr": {"lr": 0.5},
          "class_restart": {"restarts": 2, "restart_class_init": 0.05}}
SETTINGS_OF = {**ABLATIONS, **TRIALS}
#: the ablation's numbers equal Table 2's Gothic-ON WR 75 % row, so it was run there
ABLATION_WR = "0.75"
STEPS = 3000

#: the paper's numbers (P@10, best of 5 seeds): Table 2 [known][wr] = (base, partial, full)
PAPER_TABLE2 = {
    "pg": {"0": (0.820, 0.749, 0.863), "0.25": (0.752, 0.734, 0.826), "0.5": (0.752, 0.736, 0.848),
           "0.75": (0.761, 0.732, 0.866)},
    "on": {"0": (0.213, 0.397, 0.597), "0.25": (0.312, 0.478, 0.610), "0.5": (0.391, 0.508, 0.643),
           "0.75": (0.435, 0.544, 0.682)},
    "oe": {"0": (0.046, 0.204, 0.497), "0.25": (0.128, 0.328, 0.474), "0.5": (0.169, 0.404, 0.495),
           "0.75": (0.250, 0.447, 0.533)},
}
PAPER_TABLE3 = {"pg": 0.865, "on": 0.558, "oe": 0.472}
NEUROCIPHER_TABLE3 = {"pg": 0.753, "on": 0.543, "oe": 0.313}
#: Table 4 (Gothic-ON): ablation -> (base, partial, full)
PAPER_ABLATION = {"none": (0.435, 0.544, 0.682), "no_ipa": (0.307, 0.490, 0.599), "no_loss": (0.000, 0.493, 0.695)}


@dataclass(frozen=True)
class Cell:
    """One run of the grid; fields are the CSV's key columns, as written there."""

    known: str
    wr: str
    variant: str
    schedule: str
    seed: int
    ablation: str = "none"

    def key(self) -> tuple[str, ...]:
        return (self.known, self.wr, self.variant, self.schedule, str(self.seed), self.ablation)

    def label(self) -> str:
        extra = "" if self.ablation == "none" else f" {self.ablation}"
        return f"{self.known} wr={self.wr} {self.variant} γ {self.schedule} seed {self.seed}{extra}"


def plan(main_seeds: int = 3, other_seeds: int = 1, ablation_seeds: int = 3, trials: bool = False) -> list[Cell]:
    """The issue's grid: WR 0 and 100 % for every language and variant with ``main_seeds`` seeds,
    the other ratios with ``other_seeds``; the ablation (Gothic-ON base at WR 75 %, the setting
    whose numbers the paper's Table 4 repeats) with ``ablation_seeds``; both schedules throughout.
    ``trials``: also the search trials (TRIALS; asked for by name with --ablation)."""
    cells: list[Cell] = []
    for known in KNOWN:
        for wr in WRS:
            seeds = main_seeds if wr in ("0", "1") else other_seeds
            for variant in VARIANTS:
                for schedule in SCHEDULES:
                    cells += [Cell(known, wr, variant, schedule, s) for s in range(seeds)]
    for ablation in ABLATIONS:
        for schedule in SCHEDULES:
            for s in range(ablation_seeds):
                cell = Cell("on", ABLATION_WR, "base", schedule, s, ablation)
                if cell not in cells:
                    cells.append(cell)
    for trial in TRIALS if trials else ():
        for known in ("on", "oe", "pg"):        # the languages the search fails on first
            for wr in ("0", "1"):
                cells += [Cell(known, wr, "base", "0-3.5", s, trial) for s in range(main_seeds)]
        for known in ("on", "oe", "pg"):        # then whether the pinned variants lose by it (WR 100 %, one seed)
            cells += [Cell(known, "1", v, "0-3.5", 0, trial) for v in ("partial", "full")]
    return cells


def select(cells: Iterable[Cell], **wanted: Sequence[str] | None) -> list[Cell]:
    """Cells whose fields are among the wanted values (None = any)."""
    out = []
    for c in cells:
        if all(values is None or str(getattr(c, name)) in values for name, values in wanted.items()):
            out.append(c)
    return out


# ------------------------------------------------------------------------------------------
# data and settings


def dataset_dir(known: str, wr: str, cache: Path = CACHE) -> Path:
    return cache / f"{KNOWN[known]}-wr{round(float(wr) * 100)}"


def missing_dataset(known: str, wr: str, cache: Path = CACHE) -> str | None:
    """An error line when ``cache`` lacks the built dataset of (known, wr), else None."""
    data = dataset_dir(known, wr, cache)
    missing = [n for n in ("lost.csv", "known.csv", "gold.csv") if not (data / n).is_file()]
    return f"error: {data}: no {', '.join(missing)} (build the datasets into --data first)" if missing else None


def ensure_dataset(known: str, wr: str, cache: Path = CACHE) -> Path:
    """Build the dataset through ``decipher dataset gothic`` when it is not cached yet (seed 0 for
    the word-divider draws, so every run of a ratio sees the same text)."""
    out = dataset_dir(known, wr, cache)
    if not (out / "gold.csv").exists():
        from engine.cli.main import main as decipher
        code = decipher(["dataset", "gothic", "--known", KNOWN[known], "--wr", str(round(float(wr) * 100)),
                         "--seed", "0", "--out", str(out), "--quiet", "--force"])   # the cache is its own
        if code:
            raise SystemExit(f"building the Gothic dataset {out} failed (needs ../shared/data)")
    return out


def prior_path(variant: str) -> Path | None:
    return None if variant == "base" else PRIORS / f"gothic-{variant}.csv"


def cell_settings(cell: Cell, steps: int = STEPS) -> dict:
    """The engine settings of a cell: paper defaults, the schedule and the ablation. Every ratio,
    WR 100 % included, uses the ordinary span lattice: at WR 100 % every word is its own chunk (all
    dividers are written), and a stem is a span *inside* it (the word minus its ending). The
    authors' ``segmented`` flag made type-level data (one word per sentence); it did not make the
    whole word the span, which is what the engine's ``segmented`` setting means (Ugaritic): with
    it an inflected Gothic word had to match a bare stem and P@10 fell to 0.24 (PG, seed 0)."""
    start, end = SCHEDULES[cell.schedule]
    return dict(seed=cell.seed, steps=steps, insertion_cost_start=start, insertion_cost_end=end,
                eval_interval=0, **SETTINGS_OF[cell.ablation])


# ------------------------------------------------------------------------------------------
# one run


def usable_pins(pins, stems):
    """The pins whose IPA unit some known stem has. The authors' code skips the others silently;
    the engine would add their units to the inventory, where Omega_loss would then pull mass
    away from the pinned letter, so the grid leaves them out (the prior tables list alternative
    notations for each letter, e.g. h as /h/ and /x/, and only the known side's one applies)."""
    from engine.model.phonology import ipa_units
    inventory = {u for st in stems for u in ipa_units(st.ipa)}
    return [p for p in pins if p.known_ipa in inventory]


def make_trainer(lost: str, known: str, gold: str, prior: str | None, settings: dict):
    """The trainer of one run, as ``decipher run`` builds it (engine/cli/main.py cmd_run), not yet trained."""
    from engine.config import Config
    from engine.corpus import Corpus, Vocabulary
    from engine.io.tables import read_gold, read_known, read_lost, read_prior
    from engine.training.trainer import Trainer

    inscriptions = read_lost(lost)
    stems = read_known(known)
    gold_rows = read_gold(gold, inscriptions=inscriptions)
    pins = usable_pins(read_prior(prior), stems) if prior else []
    config = Config.from_dict(settings)
    return Trainer(Corpus(Path(lost).parent.name, tuple(inscriptions)),
                   Vocabulary(Path(known).parent.name, tuple(stems)), config, gold=gold_rows, pins=pins,
                   live_interval=None)


def train(trainer):
    """Train ``trainer`` to its last step and evaluate it once (if the run did not); returns it."""
    for _ in trainer.run():
        pass
    if trainer.last_evaluation is None:
        trainer.evaluate()
    return trainer


def train_and_evaluate(lost: str, known: str, gold: str, prior: str | None, settings: dict):
    """Train and evaluate once, the way ``decipher run`` does; returns the trainer. The one place to
    repoint when the engine's run session changes."""
    return train(make_trainer(lost, known, gold, prior, settings))


def run_cell(lost: str, known: str, gold: str, prior: str | None, settings: dict) -> dict:
    """One run from plain arguments (file paths and a settings dict) to the row's measured values."""
    t0 = time.perf_counter()
    trainer = train_and_evaluate(lost, known, gold, prior, settings)
    wall = time.perf_counter() - t0
    m = trainer.last_evaluation.metrics
    search = search_record(trainer)
    device = str(trainer.device)
    if trainer.device.type == "cuda":
        import torch
        device = f"cuda ({torch.cuda.get_device_name(trainer.device)})"
    return {"p_at_10": round(m["p_at_10"], 4), "p_at_10_strict": round(m.get("p_at_10_strict", float("nan")), 4),
            "steps": trainer.step, "wall_s": round(wall, 1), "device": device, "search": search}


def search_record(trainer) -> dict:
    """What issue 30 reports beside P@10, read after training: the letters the mapping reads as the
    full prior's standard values (of 25), its best unit per letter, the final objective over the corpus
    (its parts too) and the gold-free diagnosis (engine/training/diagnosis.py)."""
    from benchmarks.gothic_ranks import prior_agreement
    from engine.io.tables import read_prior
    from engine.training.diagnosis import assess

    agree = prior_agreement(trainer.mapping(), read_prior(PRIORS / "gothic-full.csv"))
    parts, diagnosis = assess(trainer)
    return {"letters_right": agree["prior_agree"], "letters": agree["prior_letters"],
            "mapping_best": agree["mapping_best"], **{f"final_{k}": round(v, 4) for k, v in parts.items()},
            "flagged": diagnosis.flagged, "diagnosis": diagnosis.lines()}


def append_search(results: Path, cell: Cell, values: dict) -> None:
    """The run's search record (search_record) as one JSON line in SEARCH_FILE beside ``results``."""
    import json

    if "search" not in values:
        return
    path = results.with_name(SEARCH_FILE)
    row = dict(zip(KEY, cell.key())) | {"p_at_10": values["p_at_10"], "steps": values["steps"]} | values["search"]
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row, ensure_ascii=False) + "\n")


def cell_arguments(cell: Cell, steps: int = STEPS, cache: Path = CACHE) -> tuple:
    data = dataset_dir(cell.known, cell.wr, cache)
    prior = prior_path(cell.variant)
    return (str(data / "lost.csv"), str(data / "known.csv"), str(data / "gold.csv"),
            str(prior) if prior else None, cell_settings(cell, steps))


def _pin_worker() -> None:
    """Each worker process: one torch and numba thread, lower priority (the box is shared)."""
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["NUMBA_NUM_THREADS"] = "1"
    try:
        os.nice(10)
    except OSError:
        pass
    import torch
    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:  # already set in this process
        pass


# ------------------------------------------------------------------------------------------
# the results file


def read_rows(path: Path = RESULTS) -> list[dict]:
    if not path.exists() or path.stat().st_size == 0:
        return []
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def done_keys(rows: Iterable[dict], steps: int = STEPS) -> set[tuple[str, ...]]:
    """Keys of the runs already in the file at this number of steps."""
    return {tuple(r[k] for k in KEY) for r in rows if str(r.get("steps")) == str(steps)}


def append_row(path: Path, cell: Cell, values: dict) -> None:
    """Append one row (with the header when the file is new), flushed to disk at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    row = dict(zip(KEY, cell.key())) | {k: values[k] for k in COLUMNS[6:]}
    with open(path, "a", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if new:
            w.writeheader()
        w.writerow(row)
        f.flush()
        os.fsync(f.fileno())


RunFn = Callable[..., dict]


def run_grid(cells: Sequence[Cell], *, results: Path = RESULTS, steps: int = STEPS, workers: int = 1,
             run_fn: RunFn = run_cell, cache: Path = CACHE, build: bool = True,
             log: Callable[[str], None] = print) -> int:
    """Run the cells not yet in ``results`` and append a row for each as it finishes. ``workers``
    0 runs in this process; N >= 1 in N pinned, nice'd worker processes. Returns the runs made."""
    todo = [c for c in cells if c.key() not in done_keys(read_rows(results), steps)]
    log(f"{len(cells) - len(todo)} of {len(cells)} runs already in {results}; {len(todo)} to run")
    if not todo:
        return 0
    if build:
        for known, wr in sorted({(c.known, c.wr) for c in todo}):
            ensure_dataset(known, wr, cache)
    made = 0
    if workers <= 0:
        for c in todo:
            values = run_fn(*cell_arguments(c, steps, cache))
            append_row(results, c, values)
            append_search(results, c, values)
            made += 1
            log(f"done {c.label()}")
        return made
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_pin_worker) as pool:
        futures = {pool.submit(run_fn, *cell_arguments(c, steps, cache)): c for c in todo}
        for fut in as_completed(futures):
            c = futures[fut]
            try:
                values = fut.result()
            except Exception as e:  # one failed run must not lose the others' rows
                log(f"FAILED {c.label()}: {type(e).__name__}: {e}")
                continue
            append_row(results, c, values)
            append_search(results, c, values)
            made += 1
            log(f"done {c.label()}: P@10 {values['p_at_10']} strict {values['p_at_10_strict']} "
                f"in {values['wall_s']} s on {values['device']}")
    return made


# ------------------------------------------------------------------------------------------
# tables


@dataclass(frozen=True)
class Summary:
    n: int
    best: float
    mean: float
    best_strict: float


def summarise(rows: Iterable[dict], steps: int = STEPS) -> dict[tuple[str, ...], Summary]:
    """(known, wr, variant, ablation) -> best and mean P@10 over its seeds and schedules (the paper
    reports the best of its seeds and schedules), and the best strict P@10."""
    groups: dict[tuple[str, ...], list[dict]] = {}
    for r in rows:
        if str(r.get("steps")) != str(steps):
            continue
        groups.setdefault((r["known"], r["wr"], r["variant"], r["ablation"]), []).append(r)
    out = {}
    for k, rs in groups.items():
        p = [float(r["p_at_10"]) for r in rs]
        s = [float(r["p_at_10_strict"]) for r in rs]
        out[k] = Summary(len(rs), max(p), statistics.fmean(p), max(s))
    return out


def _cell(summary: Summary | None, paper: float) -> str:
    if summary is None:
        return f"{paper:.3f} · *not run*"
    return (f"{paper:.3f} · **{summary.best:.3f}** (mean {summary.mean:.3f}, n={summary.n}; "
            f"strict {summary.best_strict:.3f})")


def render(rows: Sequence[dict], steps: int = STEPS) -> str:
    """The marked section of docs/benchmarks.md: Tables 2, 3 and 4 beside the paper's numbers."""
    s = summarise(rows, steps)
    lines = [BEGIN, "", "Each cell: paper · **ours, best** (mean, n = runs over seeds and both γ schedules; strict = "
             "best decode-based P@10). Regenerate with `python -m benchmarks.gothic --render`; rows in "
             "`benchmarks/results/gothic.csv`.", ""]
    lines += ["**Table 2** (P@10, WR 0–75 %)", "", "| known | WR | base | partial | full |", "|---|---|---|---|---|"]
    for known in KNOWN:
        for wr in WRS[:4]:
            paper = PAPER_TABLE2[known][wr]
            cells = [_cell(s.get((known, wr, v, "none")), paper[i]) for i, v in enumerate(VARIANTS)]
            lines.append(f"| {known.upper()} | {round(float(wr) * 100)} % | " + " | ".join(cells) + " |")
    lines += ["", "**Table 3** (P@10, WR 100 %, base; NeuroCipher in brackets; our partial and full beside)", "",
              "| known | base | partial (ours) | full (ours) |", "|---|---|---|---|"]
    for known in KNOWN:
        base = _cell(s.get((known, "1", "base", "none")), PAPER_TABLE3[known])
        others = []
        for v in VARIANTS[1:]:
            x = s.get((known, "1", v, "none"))
            others.append("*not run*" if x is None else f"**{x.best:.3f}** (mean {x.mean:.3f}, n={x.n}; "
                                                         f"strict {x.best_strict:.3f})")
        lines.append(f"| {known.upper()} | {base} [{NEUROCIPHER_TABLE3[known]:.3f}] | " + " | ".join(others) + " |")
    lines += ["", f"**Ablation** (Gothic–ON, WR {round(float(ABLATION_WR) * 100)} %)", "",
              "| IPA | Ω_loss | base | partial | full |", "|---|---|---|---|---|"]
    names = {"none": ("+", "+"), "no_ipa": ("−", "+"), "no_loss": ("+", "−")}
    for ab, (ipa, loss) in names.items():
        cells = [_cell(s.get(("on", ABLATION_WR, v, ab)), PAPER_ABLATION[ab][i]) for i, v in enumerate(VARIANTS)]
        lines.append(f"| {ipa} | {loss} | " + " | ".join(cells) + " |")
    total = len(plan())
    have = len(done_keys(rows, steps) & {c.key() for c in plan()})
    lines += ["", f"{have} of the {total} runs of the planned grid are in the file ({steps} steps each).", "", END]
    return "\n".join(lines)


def write_render(rows: Sequence[dict], doc: Path = DOC, steps: int = STEPS) -> None:
    """Replace the marked section of ``doc`` (or append it under a heading), atomically."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    section = render(rows, steps)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + section + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n## Gothic: the paper's tables\n\n" + section + "\n"
    tmp = doc.with_name(doc.name + ".part")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(doc)


# ------------------------------------------------------------------------------------------
# command line


def _list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gothic", description=__doc__.split("\n\n")[0])
    p.add_argument("--plan", action="store_true", help="print the runs that would be made, and stop")
    p.add_argument("--render", action="store_true", help="rewrite the tables in docs/benchmarks.md, and stop")
    p.add_argument("--workers", type=int, default=1, help="parallel worker processes (0: in this process)")
    p.add_argument("--steps", type=int, default=STEPS, help=f"training steps per run (default {STEPS})")
    p.add_argument("--results", type=Path, default=RESULTS, help="the results CSV (default benchmarks/results/gothic.csv)")
    p.add_argument("--doc", type=Path, default=DOC, help="the Markdown file --render rewrites")
    p.add_argument("--main-seeds", type=int, default=3, help="seeds at WR 0 and 100 %% (default 3)")
    p.add_argument("--other-seeds", type=int, default=1, help="seeds at WR 25, 50, 75 %% (default 1)")
    p.add_argument("--ablation-seeds", type=int, default=3, help="seeds of the ablation rows (default 3)")
    sel = p.add_argument_group("select (comma-separated values; default all)")
    sel.add_argument("--known", type=_list, help="pg, on, oe")
    sel.add_argument("--wr", type=_list, help="0, 0.25, 0.5, 0.75, 1")
    sel.add_argument("--variant", type=_list, help="base, partial, full")
    sel.add_argument("--schedule", type=_list, help="0-3.5, 10-3.5")
    sel.add_argument("--seed", type=_list, help="seed numbers")
    sel.add_argument("--ablation", type=_list, help="none, no_ipa, no_loss, or a search trial: vowel_weight, class_init, vowel_class, lr, "
                     "class_restart")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    allowed = {"known": KNOWN, "wr": WRS, "variant": VARIANTS, "schedule": SCHEDULES, "ablation": SETTINGS_OF}
    for name, values in allowed.items():
        bad = [v for v in (getattr(args, name) or []) if v not in values]
        if bad:
            print(f"error: --{name} {','.join(bad)}: expected one of {', '.join(values)}", file=sys.stderr)
            return 2
    if args.render:
        write_render(read_rows(args.results), args.doc, args.steps)
        print(f"tables written to {args.doc}")
        return 0
    cells = select(plan(args.main_seeds, args.other_seeds, args.ablation_seeds,
                        trials=bool(set(args.ablation or ()) & set(TRIALS))), known=args.known, wr=args.wr,
                   variant=args.variant, schedule=args.schedule, seed=args.seed, ablation=args.ablation)
    if args.plan:
        done = done_keys(read_rows(args.results), args.steps)
        for c in cells:
            print(("done  " if c.key() in done else "todo  ") + c.label())
        print(f"{sum(c.key() not in done for c in cells)} to run, {sum(c.key() in done for c in cells)} done")
        return 0
    run_grid(cells, results=args.results, steps=args.steps, workers=args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
