"""Rule tables for Old Norse and Old English spelling → IPA (written for the Gothic datasets).

They use the rule-table format of ``engine/io/transcription.py`` (docs/transcription.md) and are
parsed with its :func:`parse_rule_table`, so a word with a letter no rule reads raises a
TranscriptionError naming it; the dataset builder counts and reports such words.

Values are the textbook ones for the normalised spellings Wiktionary uses:
- Old Norse (Old West Norse, normalised; E. V. Gordon, "An Introduction to Old Norse", §§ 1–40,
  and M. Barnes, "A New Introduction to Old Norse" I, ch. 2): acute = long vowel; æ [ɛː], œ [øː],
  ǫ [ɔ]; au ei ey diphthongs; f is [v] except word-initially and before voiceless stops and s;
  g is [ɣ] after vowels and liquids, [ɡ] elsewhere; v [w]; z [ts]; x [ks]; hv [xʷ].
- Old English (West Saxon, Wiktionary's dotted spelling; R. Hogg, "A Grammar of Old English" I,
  ch. 2): macron = long vowel; ċ [tʃ], ġ [j], cg/ċġ [dʒ], sc/sċ [ʃ]; g is [ɣ] after vowels and
  liquids; f s þ ð are voiced between vowels; h is [x] except word-initially; ea eo ie diphthongs.

The model drops vowel length (docs/formats.md, "IPA units"), so length marks are kept only for
the record.
"""

from __future__ import annotations

import functools

from engine.io.transcription import RuleTable, parse_rule_table

OLD_NORSE_RULES = """\
# Old Norse (normalised) -> IPA; see engine/datasets/germanic_ipa.py for sources
@lowercase
@map * ∅
@map - ∅
@class V = a á e é i í o ó u ú y ý æ œ ø ǫ ǿ ö ā
@class VL = {V} r l
grapheme\tipa\tpreceded_by\tfollowed_by\tnote
a\ta\t\t\t
á\taː\t\t\t
ā\taː\t\t\t
e\te\t\t\t
é\teː\t\t\t
i\ti\t\t\t
í\tiː\t\t\t
o\to\t\t\t
ó\toː\t\t\t
u\tu\t\t\t
ú\tuː\t\t\t
y\ty\t\t\t
ý\tyː\t\t\t
æ\tɛː\t\t\t
œ\tøː\t\t\t
ǿ\tøː\t\t\t
ø\tø\t\t\t
ö\tø\t\t\t
ǫ\tɔ\t\t\t
au\tau̯\t\t\tdiphthong
ei\tei̯\t\t\tdiphthong
ey\tey̯\t\t\tdiphthong
b\tb\t\t\t
bb\tbb\t\t\t
d\td\t\t\t
dd\tdd\t\t\t
ð\tð\t\t\t
f\tf\t#\t\tword-initial
f\tf\t\tt|s|k\tbefore voiceless
f\tv\t\t\telsewhere voiced
ff\tff\t\t\t
g\tɣ\t{VL}\t\tafter vowels and liquids
g\tɡ\t\t\t
gg\tɡɡ\t\t\t
h\th\t\t\t
hv\txʷ\t\t\t
j\tj\t\t\t
k\tk\t\t\t
kk\tkk\t\t\t
l\tl\t\t\t
m\tm\t\t\t
n\tŋ\t\tg|k\tbefore velars
n\tn\t\t\t
p\tp\t\t\t
r\tr\t\t\t
s\ts\t\t\t
t\tt\t\t\t
v\tw\t\t\t
x\tks\t\t\t
z\tts\t\t\t
þ\tθ\t\t\t
"""

OLD_ENGLISH_RULES = """\
# Old English (West Saxon, dotted spelling) -> IPA; see engine/datasets/germanic_ipa.py
@lowercase
@map * ∅
@map - ∅
@class V = a ā æ ǣ e ē i ī o ō u ū y ȳ
@class VL = {V} r l
grapheme\tipa\tpreceded_by\tfollowed_by\tnote
a\tɑ\t\t\t
ā\tɑː\t\t\t
æ\tæ\t\t\t
ǣ\tæː\t\t\t
e\te\t\t\t
ē\teː\t\t\t
i\ti\t\t\t
ī\tiː\t\t\t
o\to\t\t\t
ō\toː\t\t\t
u\tu\t\t\t
ū\tuː\t\t\t
y\ty\t\t\t
ȳ\tyː\t\t\t
ea\tæɑ̯\t\t\tdiphthong
ēa\tæːɑ̯\t\t\t
eo\teo̯\t\t\tdiphthong
ēo\teːo̯\t\t\t
ie\tiy̯\t\t\tdiphthong
īe\tiːy̯\t\t\t
b\tb\t\t\t
bb\tbb\t\t\t
c\tk\t\t\t
cc\tkk\t\t\t
ċ\ttʃ\t\t\t
cg\tdʒ\t\t\t
ċġ\tdʒ\t\t\t
d\td\t\t\t
dd\tdd\t\t\t
f\tv\t{V}\t{V}\tbetween vowels
f\tf\t\t\t
ff\tff\t\t\t
g\tɣ\t{VL}\t\tafter vowels and liquids
g\tɡ\t\t\t
gg\tɡɡ\t\t\t
ġ\tj\t\t\t
h\th\t#\t\tword-initial
h\tx\t\t\telsewhere
hw\txʷ\t#\t\t
k\tk\t\t\t
l\tl\t\t\t
ll\tll\t\t\t
m\tm\t\t\t
mm\tmm\t\t\t
n\tŋ\t\tg|c|k\tbefore velars
n\tn\t\t\t
nn\tnn\t\t\t
p\tp\t\t\t
pp\tpp\t\t\t
r\tr\t\t\t
rr\trr\t\t\t
s\tz\t{V}\t{V}\tbetween vowels
s\ts\t\t\t
ss\tss\t\t\t
sc\tʃ\t\t\t
sċ\tʃ\t\t\t
t\tt\t\t\t
tt\ttt\t\t\t
w\tw\t\t\t
x\tks\t\t\t
þ\tð\t{V}\t{V}\tbetween vowels
þ\tθ\t\t\t
ð\tð\t{V}\t{V}\tbetween vowels
ð\tθ\t\t\t
"""


@functools.lru_cache(maxsize=None)
def old_norse_table() -> RuleTable:
    return parse_rule_table(OLD_NORSE_RULES, name="old-norse (engine.datasets)")


@functools.lru_cache(maxsize=None)
def old_english_table() -> RuleTable:
    return parse_rule_table(OLD_ENGLISH_RULES, name="old-english (engine.datasets)")


__all__ = ["OLD_ENGLISH_RULES", "OLD_NORSE_RULES", "old_english_table", "old_norse_table"]
