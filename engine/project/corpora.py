"""Corpora, known languages and gold in the project file: a mixin of
:class:`~engine.project.store.Project` (the store gives ``conn``, ``db``, ``path``, ``transaction``,
``_stamp``, ``_id_of`` and ``_need``)."""

from __future__ import annotations

import json
from typing import Iterable

from engine.corpus import Corpus, GoldAnnotation, Inscription, Stem, Vocabulary, split_units
from engine.errors import ProjectError, StoredValueError
from engine.project import schema
from engine.project.locking import locked
from engine.project.records import CorpusInfo, LanguageInfo, known_from_json, meta_from_json


def shown_name(source: object) -> str:
    """A file name as the store keeps it (provenance only): a name that is not UTF-8 (bytes
    Python carries as surrogates) is kept with those bytes written as ``\\xNN``, since SQLite
    text must be UTF-8."""
    text = str(source)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class CorporaMixin:
    """The lost corpora with their inscriptions and gold, and the known languages with their stems."""

    # ---- corpora ----------------------------------------------------------------------------

    @locked
    def add_corpus(self, name: str, inscriptions: Iterable[Inscription], *, source: str = "",
                   format: str = "") -> int:
        """Store a new corpus (its inscriptions in order); returns its id."""
        name = (name or "").strip()
        if not name:
            raise ProjectError("a corpus needs a name")
        items = list(inscriptions)
        if not items:
            raise ProjectError(f"corpus {name!r} has no inscriptions")
        seen: set[str] = set()
        for ins in items:
            if not ins.id:
                raise ProjectError(f"corpus {name!r}: an inscription has an empty id")
            if ins.id in seen:
                raise ProjectError(f"corpus {name!r}: duplicate inscription id {ins.id!r}")
            if not ins.text:
                raise ProjectError(f"corpus {name!r}: inscription {ins.id!r} has no text")
            seen.add(ins.id)
        with self.transaction():
            if self._id_of("corpus", name) is not None:
                raise ProjectError(f"a corpus named {name!r} already exists in {self.path.name}; "
                                   "choose another name")
            corpus_id = self.db["corpus"].insert(
                {"name": name, "source": shown_name(source), "format": format, "imported_at": self._stamp()}).last_pk
            self.db["inscription"].insert_all(
                ({"corpus_id": corpus_id, "position": i, "inscription_id": ins.id, "raw": ins.raw,
                  "text": ins.text, "meta": json.dumps(dict(ins.meta), ensure_ascii=False)}
                 for i, ins in enumerate(items)), batch_size=1000)
        return int(corpus_id)

    @locked
    def corpora(self) -> list[CorpusInfo]:
        rows = self.conn.execute(
            "SELECT c.id, c.name, c.source, c.format, c.imported_at, "
            "(SELECT count(*) FROM inscription i WHERE i.corpus_id = c.id), "
            "(SELECT count(*) FROM gold g WHERE g.corpus_id = c.id) FROM corpus c ORDER BY c.id")
        return [CorpusInfo(*r) for r in rows]

    @locked
    def corpus_id(self, name: str) -> int:
        """The id of the corpus with this name (ProjectError if there is none)."""
        found = self._id_of("corpus", name)
        if found is None:
            names = ", ".join(repr(c.name) for c in self.corpora()) or "none"
            raise ProjectError(f"no corpus named {name!r} in {self.path.name} (corpora: {names})")
        return found

    @locked
    def inscriptions(self, corpus_id: int) -> list[Inscription]:
        self._need("corpus", corpus_id)
        rows = self.conn.execute("SELECT rowid, inscription_id, text, raw, meta FROM inscription "
                                 "WHERE corpus_id = ? ORDER BY position", (corpus_id,))
        path, check = self.path, schema.check_text
        return [Inscription(check(path, "inscription", n, "inscription_id", i),
                            check(path, "inscription", n, "text", t),
                            raw=None if r is None else check(path, "inscription", n, "raw", r,
                                                             allow_breaks=True, empty=True),
                            meta=meta_from_json(path, n, m)) for n, i, t, r, m in rows]

    @locked
    def corpus(self, corpus_id: int) -> Corpus:
        name = self._need("corpus", corpus_id)
        return Corpus(name, tuple(self.inscriptions(corpus_id)))

    @locked
    def remove_corpus(self, corpus_id: int) -> None:
        """Delete a corpus with its inscriptions and gold (runs on it keep their matches)."""
        self._need("corpus", corpus_id)
        with self.transaction():
            self.conn.execute("DELETE FROM corpus WHERE id = ?", (corpus_id,))

    # ---- known languages ---------------------------------------------------------------------

    @locked
    def add_language(self, name: str, stems: Iterable[Stem], *, source: str = "",
                     format: str = "") -> int:
        """Store a known language and its stems (in order); returns its id."""
        name = (name or "").strip()
        if not name:
            raise ProjectError("a known language needs a name")
        items = list(stems)
        if not items:
            raise ProjectError(f"known language {name!r} has no stems")
        for s in items:
            if not s.form or not s.ipa:
                raise ProjectError(f"known language {name!r}: a stem has an empty form or IPA "
                                   f"({s.form!r}, {s.ipa!r})")
        with self.transaction():
            if self._id_of("language", name) is not None:
                raise ProjectError(f"a known language named {name!r} already exists in "
                                   f"{self.path.name}; choose another name")
            language_id = self.db["language"].insert(
                {"name": name, "source": shown_name(source), "format": format, "imported_at": self._stamp()}).last_pk
            self.db["stem"].insert_all(
                ({"language_id": language_id, "position": i, "form": s.form, "ipa": s.ipa,
                  "gloss": s.gloss or "", "source": s.source or ""} for i, s in enumerate(items)),
                batch_size=1000)
        return int(language_id)

    @locked
    def languages(self) -> list[LanguageInfo]:
        rows = self.conn.execute(
            "SELECT l.id, l.name, l.source, l.format, l.imported_at, "
            "(SELECT count(*) FROM stem s WHERE s.language_id = l.id) FROM language l ORDER BY l.id")
        return [LanguageInfo(*r) for r in rows]

    @locked
    def language_id(self, name: str) -> int:
        found = self._id_of("language", name)
        if found is None:
            names = ", ".join(repr(x.name) for x in self.languages()) or "none"
            raise ProjectError(f"no known language named {name!r} in {self.path.name} "
                               f"(languages: {names})")
        return found

    @locked
    def stems(self, language_id: int) -> list[Stem]:
        self._need("language", language_id)
        rows = self.conn.execute("SELECT rowid, form, ipa, gloss, source FROM stem WHERE language_id = ? "
                                 "ORDER BY position", (language_id,))
        path, check = self.path, schema.check_text
        return [Stem(check(path, "stem", n, "form", f), check(path, "stem", n, "ipa", i),
                     check(path, "stem", n, "gloss", g, empty=True),
                     check(path, "stem", n, "source", s, allow_breaks=True, empty=True))
                for n, f, i, g, s in rows]

    @locked
    def vocabulary(self, language_id: int) -> Vocabulary:
        name = self._need("language", language_id)
        return Vocabulary(name, tuple(self.stems(language_id)))

    @locked
    def remove_language(self, language_id: int) -> None:
        self._need("language", language_id)
        with self.transaction():
            self.conn.execute("DELETE FROM language WHERE id = ?", (language_id,))

    # ---- gold ----------------------------------------------------------------------------

    @locked
    def set_gold(self, corpus_id: int, gold: Iterable[GoldAnnotation]) -> None:
        """Replace the corpus's gold annotations (checked against its inscriptions)."""
        corpus = self._need("corpus", corpus_id)
        items = list(gold)
        lengths = {i: len(split_units(t)) for i, t in self.conn.execute(
            "SELECT inscription_id, text FROM inscription WHERE corpus_id = ?", (corpus_id,))}
        for g in items:
            if g.inscription_id not in lengths:
                raise ProjectError(f"gold for corpus {corpus!r}: unknown inscription id "
                                   f"{g.inscription_id!r}")
            if not 0 <= g.start < g.word_end <= lengths[g.inscription_id]:
                raise ProjectError(f"gold for corpus {corpus!r}: span {g.start}..{g.word_end} "
                                   f"does not fit inscription {g.inscription_id!r} "
                                   f"({lengths[g.inscription_id]} units)")
            if not g.known or any(not k for k in g.known):
                raise ProjectError(f"gold for corpus {corpus!r}: no known form at "
                                   f"{g.inscription_id!r} {g.start}..{g.word_end}")
        with self.transaction():
            self.conn.execute("DELETE FROM gold WHERE corpus_id = ?", (corpus_id,))
            self.db["gold"].insert_all(
                ({"corpus_id": corpus_id, "position": i, "inscription_id": g.inscription_id,
                  "start": g.start, "word_end": g.word_end,
                  "known": json.dumps(list(g.known), ensure_ascii=False)}
                 for i, g in enumerate(items)), batch_size=1000)

    @locked
    def gold(self, corpus_id: int) -> list[GoldAnnotation]:
        self._need("corpus", corpus_id)
        rows = self.conn.execute("SELECT rowid, inscription_id, start, word_end, known FROM gold "
                                 "WHERE corpus_id = ? ORDER BY position", (corpus_id,)).fetchall()
        if not rows:
            return []
        # the spans set_gold would refuse are refused when read, too
        lengths = {i: len(split_units(t)) for i, t in self.conn.execute(
            "SELECT inscription_id, text FROM inscription WHERE corpus_id = ?", (corpus_id,))}
        out = []
        for n, i, s, e, k in rows:
            if i not in lengths:
                raise StoredValueError(self.path, "gold", n, "inscription_id",
                                       f"no inscription {i!r} in the corpus")
            if not 0 <= s < e <= lengths[i]:
                raise StoredValueError(self.path, "gold", n, "word_end",
                                       f"span {s}..{e} does not fit inscription {i!r} ({lengths[i]} units)")
            out.append(GoldAnnotation(i, s, e, known_from_json(self.path, n, k)))
        return out
