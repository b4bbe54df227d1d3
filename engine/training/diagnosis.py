"""Does a finished run look stuck? A gold-free diagnosis stored with every run (issue 30, item 3).

Gradient training can end in a poor basin of its own objective: a scramble that reads vowels as
consonants, or a basin that other runs on the same data leave behind. Nothing in the run's numbers
says so unless something checks. Each check here uses only the run's own inputs and outputs, never
the gold, and yields findings: one plain-words line each, with the letters it concerns (the letters
whose value is unstable) and what to try.

* ``class``: with signs = letters and a known language that writes vowels, each lost letter's class
  (vowel or consonant) from its contexts alone (Sukhotin's algorithm,
  engine/model/letter_classes.py) against the class of the sound the mapping reads it as. A right
  reading keeps the classes (Gothic–Proto-Germanic: 0 of 25 letters against it); the scrambles
  that fail do not (the measured table: docs/benchmarks.md, "A run that knows when it is stuck").
* ``objective``: the run's final objective against other runs of the same inputs and settings (the
  seeds of a group, the starts of a restart): one clearly higher (worse) than the best is in a worse
  basin of the same objective.
* ``vowels``: with signs = syllables, the vowels the reading gives the signs against the groups the
  text puts the signs in by the signs that follow them (engine/model/sign_groups.py: echo vowels, vowel
  harmony): a reading whose vowels fit those groups no better than the same vowels shuffled among the
  signs is probably wrong, where the groups are stable enough to mean something.
* ``starts``: with signs = syllables and restarts screened where the word phase ends, the kept start's
  reading against the other starts' there: a reading no second start found (every other start reads most of
  its signs otherwise) is probably wrong, since the starts of a reading the text supports find it again.
* ``polish``: the swap search (engine/training/polish.py) found a better mapping than training did.
* ``chance``: the run's final objective against a reference run's, the same run against invented words
  with the known list's sounds (engine/training/reference.py, setting ``reference_null``): a list that
  fits the text hardly better than its null is probably not a relative, or the run found no reading.
* ``seeds``: the run's reading of each letter against the readings of other runs of the same inputs
  and settings (the seeds of a group, a project's runs): letters that most of the others read as
  another sound are unstable, and a run whose such letters make up CLASS_SHARE_FLAG of the text or
  more is flagged (a seed that left the basin the others share, or a group that agrees on nothing).
  Each diagnosis keeps its run's best sound per letter (``readings``) and the letters' shares of the
  text, so runs can be compared after they have finished.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

#: a run is flagged when the letters read against their contextual class make up at least this share
#: of the text's letters (rare letters, whose class Sukhotin's counts barely support, weigh little).
#: Set between the runs of docs/benchmarks.md, "A run that knows when it is stuck": right readings
#: 0.000-0.031, scrambles 0.188-0.725 (chosen after seeing them)
CLASS_SHARE_FLAG = 0.10
#: a run's objective this far above the best of the same inputs and settings, as a share of the best's
#: size, is a worse basin. The seeds of one basin differed by up to 14 % (Ugaritic small set), the worse
#: basins of the full set by 19 % and 41 % (docs/benchmarks.md, "A run that knows when it is stuck"; chosen
#: after seeing them)
OBJECTIVE_MARGIN = 0.15
#: other runs needed before most of them reading a letter otherwise flags a run: with two others, two
#: seeds that fell into the same wrong basin outvoted the right one (Gothic-ON WR 100 %, vowel_weight,
#: seeds 0 and 1 against seed 2: docs/benchmarks.md, "A run that knows when it is stuck"); with fewer the
#: letters are still named as unstable
MIN_OTHERS_TO_FLAG = 3
#: a syllable reading in which the signs read as one value shared by CROWD_SIGNS signs or more make up
#: CROWD_SHARE_FLAG of the text or more is probably wrong: a syllabary writes a syllable with about one
#: sign (two where a row writes two consonants). Set on the dev ciphers of issue 49 after seeing them
#: (benchmarks/results/ciphers/dev-diagnosis.jsonl): the 12 runs that read nothing 0.158-0.723; a clean
#: synthetic grid learned from scratch 0.000 (tests/engine/test_reading_wrong.py). No dev syllabary was
#: read, so no right reading of an invented syllabary has been measured yet.
CROWD_SIGNS = 4
CROWD_SHARE_FLAG = 0.15
#: a run whose matches cover less than this share of its own coverage target (at its last step) is
#: probably wrong: it found almost nothing in the text to read as known words. Set on the issue-49
#: failure that covered 0.027 of the text against a target of 0.5; the readings of the dev ciphers, right
#: or wrong, covered 0.44 or more (docs/benchmarks.md, "Invented ciphers")
COVERAGE_SHARE_FLAG = 0.2
#: a letters run whose matches at least CLOSE_CONFIDENCE sure per letter (engine/closeness/curve.py)
#: cover less than CLOSE_SHARE_FLAG of the text is probably wrong: the matches it found are poor ones.
#: Set on the dev ciphers of issue 49 after seeing them (benchmarks/results/ciphers/dev-diagnosis.jsonl):
#: the 10 right readings (P@10 0.93-1.00) 0.112-0.645, a text read against an unrelated language's list
#: 0.040 and 0.062. Not for syllable runs, whose vowel slots are scored against chance (their per-sign
#: confidence is on another scale).
CLOSE_CONFIDENCE = 0.5
CLOSE_SHARE_FLAG = 0.085
#: a syllable reading whose signs' vowels agree with the text's vowel groups (engine/model/sign_groups.py:
#: signs that share what follows them) no better than the same vowels shuffled among the signs (a
#: permutation p of VOWEL_AGREEMENT_P or more: the usual 5 %, not searched) is probably wrong, where the
#: groups mean something: the text's two halves give groups that agree to GROUP_STABILITY_MIN or more.
#: GROUP_STABILITY_MIN was set on the texts of the dev ciphers of issue 49 (0.35-0.63; a round value below
#: them all), after seeing them and the Linear B word list's 0.13 (benchmarks/results/ciphers/dev-verdict.jsonl,
#: syllables/linear-b-verdict.jsonl; docs/diagnosis.md)
VOWEL_AGREEMENT_P = 0.05
GROUP_STABILITY_MIN = 0.3
#: a syllable run whose starts were screened where the word phase ends (restart_after_words) is probably wrong
#: when the start it kept shares less than STARTS_AGREE_FLAG of its signs' values (top onset and top vowel)
#: with every other start: no second start found that reading, where the starts of a reading the text
#: supports find it again. Needs STARTS_MIN_OTHERS other starts or more. Set on the single starts of the dev
#: syllabaries of issue 49 after seeing them (benchmarks/results/ciphers/dev-starts-check.json: kept starts
#: below P@10 0.7 agreed with another on at most 0.41 of their signs, read ones on at least 0.69;
#: docs/diagnosis.md, "The starts")
STARTS_AGREE_FLAG = 0.5
STARTS_MIN_OTHERS = 2
#: the findings that say a reading is probably wrong, not only that it may be a local optimum
WRONG_CODES = ("values", "coverage", "close", "vowels", "chance", "starts")


@dataclass(frozen=True)
class Finding:
    """One reason to doubt a run: ``code`` (class, objective, seeds, polish), the line a user reads,
    and the lost letters concerned. ``template`` and ``args``: the same line with ``{0}``, ``{1}`` …
    where lost letters stand (``args``), so that a display table can show them as scholars write
    them (:meth:`shown`); empty for a line without letters or from an older program."""

    code: str
    text: str
    letters: tuple[str, ...] = ()
    flag: bool = True
    template: str = ""
    args: tuple[str, ...] = ()

    def shown(self, name: Callable[[str], str] | None = None) -> str:
        """The line with each lost letter as ``name`` gives it (a display table's ``show``)."""
        if name is None or not self.template:
            return self.text
        return self.template.format(*(name(a) for a in self.args))

    def to_json(self) -> dict:
        out = {"code": self.code, "text": self.text, "letters": list(self.letters), "flag": self.flag}
        if self.template:
            out.update(template=self.template, args=list(self.args))
        return out

    @classmethod
    def from_json(cls, data: Mapping) -> "Finding":
        template, args = str(data.get("template", "")), tuple(str(x) for x in data.get("args", ()))
        text = str(data["text"])
        if template:
            try:                     # a template that does not give the text back is not used
                if template.format(*args) != text:
                    template, args = "", ()
            except (IndexError, KeyError, ValueError):
                template, args = "", ()
        return cls(str(data["code"]), text, tuple(str(x) for x in data.get("letters", ())),
                   bool(data.get("flag", True)), template, args)


class _Letter(str):
    """A lost letter inside a finding's line (see :func:`_line`)."""


def _line(*parts: str) -> tuple[str, str, tuple[str, ...]]:
    """(text, template, args) of a line made of plain parts and :class:`_Letter` parts."""
    text, template, args = [], [], []
    for part in parts:
        text.append(str(part))
        if isinstance(part, _Letter):
            template.append("{%d}" % len(args))
            args.append(str(part))
        else:
            template.append(str(part).replace("{", "{{").replace("}", "}}"))
    return "".join(text), "".join(template), tuple(args)


def _joined(items: Sequence[Sequence[str]], sep: str = ", ") -> list[str]:
    """Parts of several items (each a sequence of parts) joined by ``sep``."""
    out: list[str] = []
    for i, item in enumerate(items):
        if i:
            out.append(sep)
        out.extend(item)
    return out


@dataclass
class Diagnosis:
    findings: list[Finding] = field(default_factory=list)
    values: dict[str, float] = field(default_factory=dict)
    #: the run's best sound per lost letter (signs = letters runs; empty otherwise or in older files)
    readings: dict[str, str] = field(default_factory=dict)
    #: each lost letter's share of the text (for weighing the letters the runs disagree on)
    shares: dict[str, float] = field(default_factory=dict)

    @property
    def flagged(self) -> bool:
        """Whether the run may be a local optimum (some finding flags it)."""
        return any(f.flag for f in self.findings)

    def unstable_letters(self) -> dict[str, str]:
        """Each letter a finding names, with the finding's code(s) (``class``, ``polish`` …)."""
        out: dict[str, list[str]] = {}
        for f in self.findings:
            for letter in f.letters:
                out.setdefault(letter, [])
                if f.code not in out[letter]:
                    out[letter].append(f.code)
        return {k: ", ".join(v) for k, v in out.items()}

    def lines(self) -> list[str]:
        return [f.text for f in self.findings]

    @property
    def probably_wrong(self) -> bool:
        """Whether a finding says the reading is probably wrong (not only a possible local optimum)."""
        return any(f.flag and f.code in WRONG_CODES for f in self.findings)

    def headline(self, name: Callable[[str], str] | None = None) -> str:
        """One line for a summary: the verdict in plain words (``name``: how lost letters are shown)."""
        if self.probably_wrong:
            return "this reading is probably wrong: " + "; ".join(f.shown(name) for f in self.findings if f.flag)
        if self.flagged:
            return "this reading may be a local optimum: " + "; ".join(f.shown(name) for f in self.findings if f.flag)
        checked = self.checks()
        if not checked:
            return ("no check of a stuck training applied to this run (the letter-class check needs signs = letters "
                    "and a known language that writes vowels; the others need other finished runs of the same data "
                    "and settings): nothing says whether this reading is the best the training can reach")
        return ("checked without the gold — " + "; ".join(checked) + ": no sign that the training got stuck in a "
                "worse reading than it can reach. This does not say the reading is right, only that these checks "
                "found nothing against it")

    def checks(self) -> list[str]:
        """What the gold-free checks that ran looked at, in words (from ``values``: a check that did
        not run left none; a diagnosis from an older program may lack the counts)."""
        v, out = self.values, []
        if "diagnosis_class_mismatch" in v:
            n = int(v.get("diagnosis_vowel_letters", 0))
            out.append("whether each letter is read as a vowel or a consonant as its contexts in the text suggest"
                       + (f" ({n} letter{'s' if n != 1 else ''} pattern as vowels)" if "diagnosis_vowel_letters" in v
                          else ""))
        if "diagnosis_objective_gap" in v:
            k = int(v.get("diagnosis_objective_runs", 0))
            out.append("its final objective against " + (f"{k} other run{'s' if k != 1 else ''}" if k else "other runs")
                       + " of the same data and settings")
        if "diagnosis_runs_disagree" in v:
            k = int(v.get("diagnosis_readings_runs", 0))
            out.append("its letters' readings against " + (f"{k} other runs" if k else "other runs")
                       + " of the same data and settings")
        if "diagnosis_swap_search" in v:
            out.append("a search for letter swaps that lower the objective")
        if "diagnosis_crowded_share" in v:
            out.append(f"whether the signs are read as distinct syllables ({v['diagnosis_crowded_share']:.0%} of the "
                       "text in signs that share their value with 3 others or more)")
        if "diagnosis_vowel_agreement_p" in v:
            out.append("whether the signs' vowels follow the groups the text puts them in (chance "
                       f"p = {v['diagnosis_vowel_agreement_p']:.2f}; the groups' stability "
                       f"{v.get('diagnosis_vowel_groups_stability', 0.0):.2f})")
        if "diagnosis_starts_agreement" in v:
            k = int(v.get("diagnosis_starts_compared", 0))
            out.append(f"whether another of its starts found the same reading ({k} other start"
                       f"{'s' if k != 1 else ''}; at most {v['diagnosis_starts_agreement']:.0%} of the signs read "
                       "alike)")
        if "diagnosis_coverage_of_target" in v:
            out.append(f"how much of the text its matches cover ({v['diagnosis_coverage_of_target']:.0%} of the "
                       "coverage target)")
        if "diagnosis_reference_margin" in v:
            out.append("how much better the known list fits the text than invented words with its sounds (a "
                       f"reference run: objective {v['diagnosis_reference_margin']:+.2f} better)")
        if "diagnosis_close_share" in v:
            out.append(f"how much of the text is matched closely ({v['diagnosis_close_share']:.0%} at least "
                       f"{CLOSE_CONFIDENCE:.0%} sure per letter)")
        return out

    def to_json(self) -> dict:
        out = {"flagged": self.flagged, "findings": [f.to_json() for f in self.findings],
               "values": {k: float(v) for k, v in self.values.items()}}
        if self.readings:
            out["readings"] = dict(self.readings)
            out["shares"] = {k: float(v) for k, v in self.shares.items()}
        return out

    @classmethod
    def from_json(cls, data: Mapping) -> "Diagnosis":
        return cls([Finding.from_json(f) for f in data.get("findings", ())],
                   {str(k): float(v) for k, v in dict(data.get("values", {})).items()},
                   {str(k): str(v) for k, v in dict(data.get("readings", {})).items()},
                   {str(k): float(v) for k, v in dict(data.get("shares", {})).items()})


def class_finding(mapping, vowel_letters: Sequence[str] | None,
                  shares: Mapping[str, float] | None = None) -> tuple[Finding | None, dict[str, float]]:
    """The letters ``mapping`` (a MappingSnapshot of a letters run) reads against their contextual
    class (``vowel_letters``: engine.model.letter_classes.class_evidence), or None when the check
    does not apply (``vowel_letters`` None) or finds nothing. ``shares``: each letter's share of the
    text (default: all equal)."""
    if vowel_letters is None or mapping.syllables is not None:
        return None, {}
    return class_finding_of(mapping.best_sounds(), vowel_letters, shares)


def class_finding_of(best: Mapping[str, str], vowel_letters: Sequence[str],
                     shares: Mapping[str, float] | None = None) -> tuple[Finding | None, dict[str, float]]:
    """:func:`class_finding` from each letter's best unit (``best``: letter -> IPA unit)."""
    from engine.model.syllables import is_vowel

    vowels = set(vowel_letters)
    if shares is None:
        shares = {letter: 1.0 / max(len(best), 1) for letter in best}
    against = [(letter, unit) for letter, unit in best.items() if (letter in vowels) != is_vowel(unit)]
    share = sum(shares.get(letter, 0.0) for letter, _ in against)
    values = {"diagnosis_class_mismatch": float(len(against)), "diagnosis_class_share": float(share),
              "diagnosis_vowel_letters": float(len(vowels))}
    if not against:
        return None, values
    letters = tuple(letter for letter, _ in against)
    flag = share >= CLASS_SHARE_FLAG
    n = len(against)
    text, template, args = _line(
        f"{n} letter{'s' if n > 1 else ''} ({share:.0%} of the text) read against how "
        f"{'they pattern' if n > 1 else 'it patterns'} in the text (",
        *_joined([(_Letter(a), f" → {u}") for a, u in against]), "; the vowels by their contexts: ",
        *_joined([(_Letter(v),) for v in sorted(vowels)], " "), ")",
        *(("; try more seeds or restarts, or pin a vowel",) if flag else ()))
    return Finding("class", text, letters, flag, template, args), values


def objective_finding(objective: float, others: Mapping[str, float]) -> tuple[Finding | None, dict[str, float]]:
    """The run's final ``objective`` against ``others`` (label -> objective of a run with the same
    inputs and settings, e.g. ``seed 3``): flagged when it is above the best by OBJECTIVE_MARGIN of the
    best's size or more."""
    finite = {k: v for k, v in others.items() if math.isfinite(v)}
    if not finite or not math.isfinite(objective):
        return None, {}
    label, best = min(finite.items(), key=lambda kv: kv[1])
    values = {"diagnosis_objective_gap": float(objective - best), "diagnosis_objective_runs": float(len(finite))}
    if objective - best < OBJECTIVE_MARGIN * max(abs(best), 1e-9):
        return None, values
    return Finding("objective", f"its objective {objective:.3f} is {objective - best:.3f} worse than {label}'s "
                   f"{best:.3f} on the same data and settings; prefer that run's reading", ()), values


def agreement_finding(readings: Mapping[str, str], shares: Mapping[str, float],
                      others: Mapping[str, Mapping[str, str]]) -> tuple[Finding | None, dict[str, float]]:
    """The letters this run reads otherwise than most ``others`` do (label -> another run's
    readings, same inputs and settings): a letter is unstable when one other sound is the reading of
    more than half of the other runs that read it. Needs two other runs or more (with one, nothing
    says which of the two is wrong). Flagged when the unstable letters make up CLASS_SHARE_FLAG of the
    text or more and MIN_OTHERS_TO_FLAG other runs or more read them."""
    others = {k: v for k, v in others.items() if v}
    if not readings or len(others) < 2:
        return None, {}
    against = []
    for letter, unit in readings.items():
        theirs = [o[letter] for o in others.values() if letter in o]
        if len(theirs) < 2:
            continue
        top = max(set(theirs), key=lambda u: (theirs.count(u), u))
        if top != unit and 2 * theirs.count(top) > len(theirs):
            against.append((letter, unit, top, theirs.count(top), len(theirs)))
    share = sum(shares.get(letter, 0.0) for letter, *_ in against)
    values = {"diagnosis_runs_disagree": float(len(against)), "diagnosis_runs_disagree_share": float(share),
              "diagnosis_readings_runs": float(len(others))}
    if not against:
        return None, values
    n = len(against)
    flag = share >= CLASS_SHARE_FLAG and len(others) >= MIN_OTHERS_TO_FLAG
    tail = ("; prefer the reading most runs share, or try more seeds" if flag else
            f"; {len(others)} other runs are too few to say which reading is the stray one"
            if share >= CLASS_SHARE_FLAG else "")
    text, template, args = _line(
        f"{n} letter{'s' if n > 1 else ''} ({share:.0%} of the text) read otherwise by most other runs of "
        "the same data and settings (",
        *_joined([(_Letter(a), f" → {u} where {k} of {m} read {t}") for a, u, t, k, m in against]), ")", tail)
    return Finding("seeds", text, tuple(a for a, *_ in against), flag, template, args), values


def values_finding(table, shares: Mapping[str, float]) -> tuple[Finding | None, dict[str, float]]:
    """The signs of a syllable run (``table``: its SyllableTable) that are read as a value CROWD_SIGNS
    signs or more share: flagged (the reading is probably wrong) when they make up CROWD_SHARE_FLAG of
    the text (``shares``: each sign's share) or more."""
    from engine.model.syllables import NULL_ONSET

    top = table.top_values()
    readers: dict[tuple[str, str], list[str]] = {}
    for sign, value in top.items():
        readers.setdefault(value, []).append(sign)
    crowded = {v: signs for v, signs in readers.items() if len(signs) >= CROWD_SIGNS}
    share = sum(shares.get(sign, 0.0) for signs in crowded.values() for sign in signs)
    values = {"diagnosis_crowded_share": float(share), "diagnosis_distinct_values": float(len(readers))}
    if share < CROWD_SHARE_FLAG:
        return None, values
    n = sum(len(signs) for signs in crowded.values())
    worst = sorted(crowded.items(), key=lambda kv: -len(kv[1]))[:4]
    named = ", ".join(f"{(v[1] if v[0] == NULL_ONSET else v[0] + v[1])} by {len(signs)}" for v, signs in worst)
    text, template, args = _line(
        f"{n} signs ({share:.0%} of the text) are read as the same few syllables ({named}), where a "
        "syllabary writes each syllable with about one sign: the matches rest on no consistent sign values; "
        "try more restarts or a longer run, or pin the signs you are sure of")
    return Finding("values", text, tuple(s for _, signs in worst for s in signs), True, template, args), values


def vowels_finding(table, chunks) -> tuple[Finding | None, dict[str, float]]:
    """The signs' vowels in a syllable run (``table``: its SyllableTable) against the vowel groups of
    its text (``chunks``: the runs of signs between dividers): flagged (probably wrong) where the groups
    are stable and the vowels agree with them no better than chance (module constants)."""
    from engine.model.sign_groups import vowel_evidence

    top = table.top_values()
    evidence = vowel_evidence(chunks, {sign: value[1] for sign, value in top.items()})
    if evidence is None:
        return None, {}
    values = {"diagnosis_vowel_groups_stability": evidence.stability,
              "diagnosis_vowel_agreement": evidence.agreement, "diagnosis_vowel_agreement_chance": evidence.chance,
              "diagnosis_vowel_agreement_p": evidence.p_value}
    if evidence.stability < GROUP_STABILITY_MIN or evidence.p_value < VOWEL_AGREEMENT_P:
        return None, values
    return Finding("vowels", f"the signs' vowels do not follow the text: signs that the text groups together by "
                   f"the signs that follow them (echo vowels, vowel harmony) are read with vowels that fit those "
                   f"groups no better than the same vowels shuffled among the signs (p = {evidence.p_value:.2f}), "
                   "where a right reading's vowels fit them; try more restarts or seeds, or pin the signs you are "
                   "sure of"), values


def starts_agreement(readings: Sequence[Mapping[str, str]], kept: int) -> list[float]:
    """For each start but ``kept`` with a reading (``readings``: each start's, {} for one that diverged), the
    share of the kept start's signs that it reads as the kept start does."""
    mine = readings[kept]
    if not mine:
        return []
    return [sum(other.get(sign) == value for sign, value in mine.items()) / len(mine)
            for r, other in enumerate(readings) if r != kept and other]


def starts_finding(selection) -> tuple[Finding | None, dict[str, float]]:
    """The start a syllable run kept (``selection``: its restarts record, engine/training/restarts.py) against
    its other starts, where they were screened at the word phase's end (the vowels trained; at an earlier
    screen a start's vowels are still chance): flagged (probably wrong) when it shares less than
    STARTS_AGREE_FLAG of its signs' values with every other start. None when the check does not apply."""
    if selection is None or not selection.done or not (selection.after_words and selection.set_words):
        return None, {}
    agreement = starts_agreement(selection.readings, selection.kept)
    if len(agreement) < STARTS_MIN_OTHERS:
        return None, {}
    best = max(agreement)
    values = {"diagnosis_starts_agreement": float(best), "diagnosis_starts_compared": float(len(agreement))}
    if best >= STARTS_AGREE_FLAG:
        return None, values
    n = len(agreement)
    return Finding("starts", f"no other start found this reading: the start kept reads at most {best:.0%} of its "
                   f"signs as any of the {n} others does, where the starts of a reading the text supports find it "
                   f"again ({STARTS_AGREE_FLAG:.0%} of the signs or more read alike); try more restarts or seeds, or "
                   "pin the signs you are sure of"), values


def coverage_finding(coverage: float, target: float) -> tuple[Finding | None, dict[str, float]]:
    """The run's final ``coverage`` (share of the text its matches cover) against its coverage
    ``target``: flagged (probably wrong) below COVERAGE_SHARE_FLAG of the target."""
    if not (math.isfinite(coverage) and target > 0):
        return None, {}
    values = {"diagnosis_coverage_of_target": float(coverage / target)}
    if coverage >= COVERAGE_SHARE_FLAG * target:
        return None, values
    return Finding("coverage", f"its matches cover {coverage:.1%} of the text where the run aims at {target:.0%}: "
                   "it found almost nothing it can read as known words; try another candidate list, or settings "
                   "that fit the script (a syllabary: signs = syllables)"), values


def close_finding(curve) -> tuple[Finding | None, dict[str, float]]:
    """The share of the text a letters run's matches cover at CLOSE_CONFIDENCE per letter or better
    (``curve``: its closeness curve): flagged (probably wrong) below CLOSE_SHARE_FLAG."""
    from engine.closeness.curve import coverage_at

    if not curve:
        return None, {}
    share = coverage_at(curve, CLOSE_CONFIDENCE)
    values = {"diagnosis_close_share": float(share)}
    if share >= CLOSE_SHARE_FLAG:
        return None, values
    return Finding("close", f"only {share:.0%} of the text is matched closely to known stems (at least "
                   f"{CLOSE_CONFIDENCE:.0%} sure per letter), where every right reading of our development ciphers "
                   f"matched more than {CLOSE_SHARE_FLAG:.1%}: the matches are poor ones; try more restarts or seeds, or another candidate list"), values


def reference_finding(objective: float, reference) -> tuple[Finding | None, dict[str, float]]:
    """The run's final ``objective`` against its ``reference`` run's (engine/training/reference.py: the
    same run against a phonotactic null of the known list): flagged (probably wrong) when the real list
    fits the text better than the null by less than REFERENCE_MARGIN."""
    from engine.training.reference import REFERENCE_MARGIN, REFERENCE_MARGIN_NOTE

    if not (math.isfinite(objective) and math.isfinite(reference.objective)):
        return None, {}
    margin = reference.objective - objective
    values = {"diagnosis_reference_objective": float(reference.objective),
              "diagnosis_reference_margin": float(margin), "diagnosis_reference_coverage": float(reference.coverage)}
    if margin >= REFERENCE_MARGIN:
        return None, values
    return Finding("chance", f"the known list fits the text hardly better than invented words with its sounds do "
                   f"(final objective {objective:.2f} against {reference.objective:.2f} for a null list trained "
                   f"alike: {margin:+.2f}, where a margin of {REFERENCE_MARGIN:.2f} or more is needed, "
                   f"{REFERENCE_MARGIN_NOTE}): the list may be no relative of the lost language (or a distant one "
                   "with few cognates), or the run found no reading; try another candidate list (decipher closeness "
                   "compares several)"), values


def referenced(diagnosis: Diagnosis, objective: float, reference) -> Diagnosis:
    """``diagnosis`` with the reference run's finding and values (a finding from an earlier reference
    replaced)."""
    out = Diagnosis([f for f in diagnosis.findings if f.code != "chance"],
                    {k: v for k, v in diagnosis.values.items() if not k.startswith("diagnosis_reference_")},
                    dict(diagnosis.readings), dict(diagnosis.shares))
    finding, values = reference_finding(objective, reference)
    out.values.update(values)
    if finding is not None:
        out.findings.append(finding)
    out.values["diagnosis_flagged"] = float(out.flagged)
    return out


def polish_finding(result) -> Finding | None:
    """What the swap search changed (engine/training/polish.py's PolishResult), if anything: not a flag
    (the reading shown includes the moves), but the letters moved are the unstable ones."""
    if result is None or not result.kept:
        return None
    moves = "; ".join(what for what, _ in result.kept)
    return Finding("polish", f"the swap search found a better mapping than training ({moves}; objective "
                   f"{result.before:.3f} → {result.after:.3f}); the reading includes it", tuple(result.moved),
                   flag=False)


def diagnose(trainer, *, polish=None) -> Diagnosis:
    """The diagnosis of ``trainer``'s finished model on its own (``polish``: the swap search's
    result, if it ran). Other runs of the same inputs and settings are compared afterwards, once
    they have finished: :func:`compared`."""
    from engine.model.letter_classes import class_evidence, letter_shares

    mapping, shares = trainer.mapping(), letter_shares(trainer.prep)
    out = Diagnosis(readings=mapping.best_sounds())
    if out.readings:
        out.shares = {letter: float(shares.get(letter, 0.0)) for letter in out.readings}
    finding, values = class_finding(mapping, class_evidence(trainer.prep), shares)
    out.values.update(values)
    if finding is not None:
        out.findings.append(finding)
    if mapping.syllables is not None:
        finding, values = values_finding(mapping.syllables, shares)
        out.values.update(values)
        if finding is not None:
            out.findings.append(finding)
        finding, values = vowels_finding(mapping.syllables, [chunk.letters for chunk in trainer.prep.chunks])
        out.values.update(values)
        if finding is not None:
            out.findings.append(finding)
        finding, values = starts_finding(getattr(trainer, "selection", None))
        out.values.update(values)
        if finding is not None:
            out.findings.append(finding)
    ev = getattr(trainer, "last_evaluation", None)
    if ev is not None:
        finding, values = coverage_finding(ev.coverage, trainer.config.coverage_target(trainer.step))
        out.values.update(values)
        if finding is not None:
            out.findings.append(finding)
        elif mapping.syllables is None:
            finding, values = close_finding(ev.closeness)
            out.values.update(values)
            if finding is not None:
                out.findings.append(finding)
    if polish is not None:   # the swap search ran (what it moved, if anything, is a finding)
        out.values["diagnosis_swap_search"] = 1.0
    finding = polish_finding(polish)
    if finding is not None:
        out.findings.append(finding)
    out.values["diagnosis_flagged"] = float(out.flagged)
    return out


def assess(trainer) -> tuple[dict[str, float], Diagnosis]:
    """The finished run's final objective over its corpus (engine/training/final_objective.py, its
    parts too) and its diagnosis, from one pass over the corpus: what every run stores at its end
    (engine/runs/session.py ``RunSession.end``). The swap polish's result is read from the trainer
    (``trainer.polish_result``, absent or None when no polish ran)."""
    from engine.training.final_objective import corpus_objective

    values = corpus_objective(trainer)
    return values, diagnose(trainer, polish=getattr(trainer, "polish_result", None))


#: what compared() makes anew: findings and values
_COMPARED_CODES = ("objective", "seeds")
_COMPARED_VALUES = ("diagnosis_objective_gap", "diagnosis_objective_runs", "diagnosis_runs_disagree",
                    "diagnosis_runs_disagree_share", "diagnosis_readings_runs")


def compared(diagnosis: Diagnosis, objective: float | None, others: Mapping[str, float],
             readings: Mapping[str, Mapping[str, str]] | None = None) -> Diagnosis:
    """``diagnosis`` with its comparisons made anew: its objective against ``others`` (label -> final
    objective of a run with the same inputs and settings, this run left out) and its readings against
    ``readings`` (label -> such a run's readings, Diagnosis.readings): what a seed group or a
    project's listing adds once every run of them has finished. Without an objective or others it
    is ``diagnosis`` without those findings."""
    out = Diagnosis([f for f in diagnosis.findings if f.code not in _COMPARED_CODES],
                    {k: v for k, v in diagnosis.values.items() if k not in _COMPARED_VALUES},
                    dict(diagnosis.readings), dict(diagnosis.shares))
    at = sum(1 for f in out.findings if f.code == "class")
    if objective is not None and others:
        finding, values = objective_finding(objective, others)
        out.values.update(values)
        if finding is not None:
            out.findings.insert(at, finding)
            at += 1
    if readings:
        finding, values = agreement_finding(diagnosis.readings, diagnosis.shares, readings)
        out.values.update(values)
        if finding is not None:
            out.findings.insert(at, finding)
    out.values["diagnosis_flagged"] = float(out.flagged)
    return out


#: what a run without a stored diagnosis (older projects and run folders) shows
NO_DIAGNOSIS = "no diagnosis"


def summary_lines(diagnosis: Diagnosis | None, name: Callable[[str], str] | None = None) -> list[str]:
    """The lines a summary prints: the headline, then each finding the headline does not already
    say (the headline of a flagged run holds its flagged findings); [NO_DIAGNOSIS] for None.
    ``name``: how lost letters are shown (default: as the data writes them)."""
    if diagnosis is None:
        return [NO_DIAGNOSIS]
    head = diagnosis.headline(name)
    return [head] + [f.shown(name) for f in diagnosis.findings if not (diagnosis.flagged and f.flag)]


def plain_words(diagnosis: Diagnosis | None, name: Callable[[str], str] | None = None) -> str:
    """The diagnosis as a sentence for the app's run panel ("This reading may be a local
    optimum: … try more seeds or restarts, or pin a vowel"), lost letters shown by ``name``."""
    lines = summary_lines(diagnosis, name)
    text = " ".join(line[:1].upper() + line[1:] + ("" if line.endswith(".") else ".") for line in lines)
    if diagnosis is not None and diagnosis.flagged and "try" not in text:
        text += " Try more seeds or restarts, or pin a vowel."
    return text


def diagnosis_from(data) -> Diagnosis | None:
    """A stored diagnosis (``Diagnosis.to_json()``, from a metrics.json or a project) read back, or
    None when there is none or it is not of that shape (an older or edited file)."""
    if not isinstance(data, Mapping):
        return None
    try:
        return Diagnosis.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
