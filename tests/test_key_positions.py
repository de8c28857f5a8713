"""Where a match key occurs in a text: word and word-part starts for Latin keys (what passages, snippets and the
deep-hit rule count), found without a look-behind in the pattern; the same places as the plain definition."""

from __future__ import annotations

import random
import re

from knit_desktop.core.text.tokens import LATIN_DOC_RUN, key_positions, latin_key, run_keys


def by_definition(text: str, key: str) -> list[int]:
    """Every LATIN_DOC_RUN run in order, and in each the offsets of its keys equal to `key`."""
    return [m.start() + offset for m in LATIN_DOC_RUN.finditer(text) for k, offset in run_keys(m.group(0)) if k == key]


WORDS = ["update", "Update", "updates", "updated", "mtime", "mtimeMs", "mtime_ms", "lastMtime", "MTIME", "retry",
         "retrying", "uploadRetry", "upload_retry", "x2update", "update2", "café", "naïve", "über", "_update", "é"]
GLUE = [" ", "  ", "\n", ".", "-", "é", "", "_", "/", "(", "Ω", "9"]


def test_latin_keys_are_found_where_the_definition_puts_them():
    rng = random.Random(7)
    keys = sorted({latin_key(w) for w in WORDS if re.fullmatch(r"[A-Za-z0-9_]+", w)} | {"ms", "time", "retri"})
    for _ in range(300):
        text = "".join(rng.choice(WORDS) + rng.choice(GLUE) for _ in range(rng.randint(1, 40)))
        for key in keys:
            assert key_positions(text, key) == by_definition(text, key), (text, key)


def test_a_run_inside_a_longer_one_is_not_a_place_of_its_key():
    text = "xupdate updatex update Update. lastMtime mtime"
    assert key_positions(text, latin_key("update")) == [text.index(" update ") + 1, text.index("Update")]
    assert key_positions(text, latin_key("mtime")) == [text.index("Mtime"), text.rindex("mtime")]
