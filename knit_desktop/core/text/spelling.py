"""British and American spellings of one word folded into one form, so "colour scheme" meets "color scheme",
"initialised" meets "initialized" and "catalogue" meets "catalog".

`fold_spelling` takes a lowercased word and gives its American spelling when it is a British one it knows; any
other word comes back as it is. It works on whole words and their inflections (`colours`, `coloured`,
`organisation`, `cancelling`), before any stemming, and is applied alike to the text searched and to the question,
so either spelling on either side meets the other. The ranking engine's prefix stemming (`rank.keywords.stem`)
folds with it, and so memory search, which compares by that stemming. The document index does not: it stores
Snowball keys (`tokens.latin_key`), and folding there would change the keys of every index already built.

Only words listed here are folded (their stems below, with the endings they take): a rule such as "-ise → -ize"
alone would also turn `promise`, `exercise` and `enterprise` into words that do not exist, and a rule such as
"-our → -or" would turn `hour` and `four` into other words.
"""

from __future__ import annotations

from functools import lru_cache

# -our → -or: the stem and every word that starts with it (`colour`, `colours`, `colourful`, `favourite`).
_OUR = ("colour", "behaviour", "favour", "honour", "labour", "flavour", "neighbour", "rumour", "humour", "harbour",
        "armour", "vapour", "odour", "parlour", "endeavour", "valour", "vigour", "clamour", "savour", "splendour")
# -ise → -ize (and -isation → -ization, -iser → -izer): the part before "is".
_ISE = ("organ", "initial", "normal", "serial", "deserial", "optim", "custom", "synchron", "recogn", "priorit",
        "final", "author", "visual", "summar", "minim", "maxim", "categor", "util", "real", "token", "parameter",
        "container", "modular", "sanit", "standard", "local", "capital", "emphas", "special", "general", "memor",
        "apolog", "critic", "material", "virtual", "random", "stabil", "central", "decentral", "personal",
        "character", "operational", "vector", "monet", "legal", "equal", "regular", "familiar", "popular", "harmon",
        "colon", "theor", "symbol", "jeopard", "item", "canonical", "modern", "global", "internal", "external",
        "digit", "quant", "trivial", "factor", "public", "rational", "sensit", "anonym", "pseudonym", "industrial",
        "commercial", "steril", "mobil", "neutral", "revital", "subsid", "econom", "amort", "lemmat", "dramat",
        "hypothes", "synthes", "polymer", "templat", "contextual", "conceptual", "formal", "plagiar", "terror")
_ISE_ENDINGS = ("ise", "ises", "ised", "ising", "iser", "isers", "isation", "isations", "isable")
# -yse → -yze. Not "analyses": it is also the plural of "analysis", in both spellings (folded, it would no longer
# meet "analysis" by prefix).
_YSE = ("analyse", "paralyse", "catalyse", "dialyse")
_YSE_ENDINGS = ("", "d", "r", "rs")
# A doubled l before -ed, -ing, -er (`cancelled`, `labelling`, `modeller`): the stem keeps one.
_LL = ("cancel", "label", "model", "travel", "signal", "level", "total", "fuel", "channel", "tunnel", "marshal",
       "dial", "funnel", "counsel", "pedal", "shovel", "bevel", "jewel", "panel", "quarrel", "unravel", "libel",
       "remodel", "relabel", "snorkel", "initial", "equal")
_LL_ENDINGS = ("led", "ling", "ler", "lers")
# Whole words and their inflections: the British form, the American one.
_WORDS = {
    "catalogue": "catalog", "dialogue": "dialog", "analogue": "analog", "prologue": "prolog", "epilogue": "epilog",
    "monologue": "monolog", "centre": "center", "fibre": "fiber", "metre": "meter", "litre": "liter",
    "theatre": "theater", "calibre": "caliber", "spectre": "specter", "sombre": "somber", "meagre": "meager",
    "licence": "license", "defence": "defense", "offence": "offense", "pretence": "pretense", "practise": "practice",
    "grey": "gray", "programme": "program", "judgement": "judgment", "acknowledgement": "acknowledgment",
    "fulfil": "fulfill", "fulfilment": "fulfillment", "enrol": "enroll", "enrolment": "enrollment",
    "instalment": "installment", "artefact": "artifact", "mould": "mold", "sceptical": "skeptical",
    "sceptic": "skeptic", "cheque": "check", "aluminium": "aluminum", "plough": "plow", "tyre": "tire",
    "whilst": "while", "amongst": "among", "learnt": "learned", "spelt": "spelled", "dreamt": "dreamed",
    "burnt": "burned", "manoeuvre": "maneuver", "oestrogen": "estrogen", "paediatric": "pediatric",
    "encyclopaedia": "encyclopedia", "disc": "disk", "storey": "story", "kerb": "curb", "draught": "draft",
}


def _table() -> dict[str, str]:
    out: dict[str, str] = {}  # the -our words are folded by prefix, in `fold_spelling`
    for stem in _ISE:
        for ending in _ISE_ENDINGS:
            out[stem + ending] = stem + "iz" + ending[2:]
    for word in _YSE:
        for ending in _YSE_ENDINGS:
            out[word + ending] = word[:-2] + "ze" + ending
        out[word[:-1] + "ing"] = word[:-2] + "zing"  # analysing -> analyzing
    for stem in _LL:
        for ending in _LL_ENDINGS:
            out[stem + ending] = stem + ending[1:]
    for british, american in _WORDS.items():
        out[british], out[british + "s"] = american, american + "s"
        endings: tuple[str, ...]
        if british.endswith("e") and american.endswith("e"):  # licensed, licensing, practised
            endings = ("ed", "er", "ers", "ing")
            british, american = british[:-1], american[:-1]
        else:
            endings = ("ed", "ing") if not british.endswith("e") and not american.endswith("e") else ()
        for ending in endings:
            out.setdefault(british + ending, american + ending)
    return out


_TABLE = _table()
_OUR_PREFIXES = frozenset(_OUR)


@lru_cache(maxsize=65536)
def fold_spelling(word: str) -> str:
    """The American spelling of a lowercased British word this module knows (`colour` -> `color`, `colourful` ->
    `colorful`, `initialised` -> `initialized`, `cancelling` -> `canceling`, `catalogues` -> `catalogs`), any
    other word unchanged."""
    folded = _TABLE.get(word)
    if folded is not None:
        return folded
    for size in range(5, min(len(word), 10) + 1):  # -our stems are 5 to 9 letters; the word may go on after one
        head = word[:size]
        if head in _OUR_PREFIXES:
            return head[:-2] + "r" + word[size:]
    return word
