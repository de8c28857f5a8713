"""Passage retrieval on public documentation: does `knit_ask` quote the passage that answers the question?

62 questions of `cases_public.json` have their answer labelled in `passages_public.json` (text of the answering
document; see that file). Three systems answer each question with 5 passages:
- **knit**: `Library.ask` over corpus_public as a library folder (document BM25F, then passage BM25 over the best
  documents' passages), within the default 6,000-character budget;
- **kb-lite**: dsh-kb-lite's own method as its README describes it, reimplemented here: Markdown cut at ATX headings,
  sections over 1,200 characters cut at blank lines or sentence ends with 120 characters of overlap, text cut at blank
  lines and merged greedily up to 1,200 with 120 overlap; tokens are lowercased `[a-z0-9_]+` words, CJK bigrams and
  single CJK characters; BM25 (k1 1.2, b 0.75) rebuilt on every query;
- **bm25s**: the bm25s library over Knit's passages with the public eval's baseline analyser (stemmed English
  without stop words, CJK bigrams).
A question counts as answered when one of the 5 passages (from the labelled file) contains the answer text
(whitespace-normalised). Run as a script for the table: `python -m tests.eval.passage_eval`.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import time
from collections import Counter
from pathlib import Path

from .public_eval import CORPUS, baseline_tokens, corpus_files

HERE = Path(__file__).resolve().parent
LABELS = HERE / "passages_public.json"
TOP_K = 5
MAX_CHARS = 6000


def load_labels() -> list[dict]:
    return json.loads(LABELS.read_text(encoding="utf-8"))["labels"]


def norm(text: str) -> str:
    return " ".join(text.split())


# --- the kb-lite peer ------------------------------------------------------------------------------------

KB_SIZE = 1200
KB_OVERLAP = 120
_KB_LATIN = re.compile(r"[a-z0-9_]+")
_KB_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_ATX = re.compile(r"^#{1,6}\s")
_SENTENCE = re.compile(r"[.!?。！？](?:\s|$)")


def kb_tokens(text: str) -> list[str]:
    lowered = text.lower()
    tokens = _KB_LATIN.findall(lowered)
    for run in _KB_CJK.findall(lowered):
        tokens.extend(run[i : i + 2] for i in range(len(run) - 1))
        tokens.extend(run)  # single characters as the fallback
    return tokens


def _kb_split(text: str) -> list[str]:
    """A section over KB_SIZE, cut at a blank line or a sentence end in the second half of each piece, the next piece
    starting KB_OVERLAP characters back."""
    pieces, pos = [], 0
    while pos < len(text):
        end = min(len(text), pos + KB_SIZE)
        if end < len(text):
            cut = text.rfind("\n\n", pos + KB_SIZE // 2, end)
            if cut < 0:
                ends = [m.end() for m in _SENTENCE.finditer(text, pos + KB_SIZE // 2, end)]
                cut = ends[-1] if ends else -1
            if cut > pos:
                end = cut
        pieces.append(text[pos:end])
        if end >= len(text):
            break
        pos = max(pos + 1, end - KB_OVERLAP)
    return pieces


def kb_chunks(text: str, markdown: bool) -> list[str]:
    if markdown:
        sections, current = [], []
        for line in text.split("\n"):
            if _ATX.match(line) and current:
                sections.append("\n".join(current))
                current = []
            current.append(line)
        sections.append("\n".join(current))
        out = []
        for section in sections:
            if section.strip():
                out.extend(_kb_split(section) if len(section) > KB_SIZE else [section])
        return out
    out, current = [], ""
    for para in (p for p in re.split(r"\n\s*\n", text) if p.strip()):
        if current and len(current) + 2 + len(para) > KB_SIZE:
            out.append(current)
            current = current[-KB_OVERLAP:] + "\n\n" + para
        else:
            current = current + "\n\n" + para if current else para
        while len(current) > KB_SIZE:
            out.append(current[:KB_SIZE])
            current = current[KB_SIZE - KB_OVERLAP :]
    if current.strip():
        out.append(current)
    return out


def kb_lite_ranker(root: Path):
    chunks: list[tuple[str, str]] = []
    for rel in corpus_files(root):
        text = (root / rel).read_text(encoding="utf-8")
        chunks.extend((rel, c) for c in kb_chunks(text, rel.endswith(".md")))

    def run(query: str) -> list[tuple[str, str]]:
        # Rebuilt on every query, as kb-lite does.
        docs = [Counter(kb_tokens(text)) for _, text in chunks]
        lengths = [sum(d.values()) for d in docs]
        avg = sum(lengths) / len(lengths)
        df = Counter(t for d in docs for t in d)
        n = len(docs)
        terms = kb_tokens(query)
        scores = []
        for i, d in enumerate(docs):
            s = 0.0
            for t in terms:
                tf = d.get(t, 0)
                if tf:
                    idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                    s += idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * lengths[i] / avg))
            scores.append(s)
        order = sorted((i for i in range(n) if scores[i] > 0), key=lambda i: -scores[i])[:TOP_K]
        return [chunks[i] for i in order]

    return run


# --- Knit and bm25s --------------------------------------------------------------------------------------


def knit_ranker(root: Path):
    from knit_desktop.core.library import Library

    library = Library.open([str(root)])
    budgets: list[int] = []

    def run(query: str) -> list[tuple[str, str]]:
        answer = library.ask(query, max_chars=MAX_CHARS, top_k=TOP_K)
        budgets.append(answer["used_chars"])
        return [(p["rel"], p["text"]) for p in answer["passages"]]

    run.budgets = budgets  # type: ignore[attr-defined]
    return run


def bm25s_passage_ranker(root: Path):
    import bm25s
    import numpy as np
    import Stemmer

    from knit_desktop.core.index.documents import extract_document, kind_for_name
    from knit_desktop.core.rank.passages import chunk_document

    stemmer = Stemmer.Stemmer("english")
    chunks: list[tuple[str, str]] = []
    for rel in corpus_files(root):
        path = root / rel
        doc = extract_document(str(path), rel, kind_for_name(rel), 0, path.stat().st_size)
        chunks.extend((rel, doc.body[s:e]) for s, e in chunk_document(doc, limit=None))
    retriever = bm25s.BM25()
    retriever.index([baseline_tokens(text, stemmer) for _, text in chunks], show_progress=False)
    vocab = retriever.vocab_dict

    def run(query: str) -> list[tuple[str, str]]:
        tokens = [t for t in baseline_tokens(query, stemmer) if t in vocab]
        scores = retriever.get_scores(tokens) if tokens else np.zeros(len(chunks))
        order = sorted((i for i in range(len(chunks)) if scores[i] > 0), key=lambda i: -float(scores[i]))[:TOP_K]
        return [chunks[i] for i in order]

    return run


def evaluate(root: Path = CORPUS) -> dict[str, dict]:
    """{system: {"recall": {slice: recall@5}, "mrr": float, "median_ms": float, ...}}"""
    labels = load_labels()
    systems = {"knit": knit_ranker(root), "kb-lite": kb_lite_ranker(root), "bm25s": bm25s_passage_ranker(root)}
    out: dict[str, dict] = {}
    for name, run in systems.items():
        hits: dict[str, list[int]] = {}
        rr, times = [], []
        for label in labels:
            started = time.perf_counter()
            passages = run(label["query"])
            times.append((time.perf_counter() - started) * 1000)
            rank = next((i for i, (rel, text) in enumerate(passages, 1)
                         if rel == label["rel"] and norm(label["answer"]) in norm(text)), 0)
            for key in (label["slice"], "all"):
                hits.setdefault(key, []).append(1 if rank else 0)
            rr.append(1 / rank if rank else 0.0)
        out[name] = {"recall": {k: sum(v) / len(v) for k, v in hits.items()}, "mrr": sum(rr) / len(rr),
                     "median_ms": statistics.median(times), "questions": len(labels)}
        budgets = getattr(run, "budgets", None)
        if budgets:
            out[name]["budget_max"] = max(budgets)
            out[name]["budget_mean"] = sum(budgets) / len(budgets)
    return out


def main() -> None:
    import os
    import tempfile

    os.environ.setdefault("KNIT_DESKTOP_HOME", tempfile.mkdtemp(prefix="knit-passage-eval-"))
    results = evaluate()
    print(f"{len(load_labels())} labelled questions, {TOP_K} passages each ({MAX_CHARS}-character budget for knit)")
    print(f"{'system':8} {'recall@5':>9} {'en':>6} {'zh':>6} {'MRR@5':>6} {'median ms':>10}")
    for name, r in results.items():
        rec = r["recall"]
        print(f"{name:8} {rec['all']:9.3f} {rec.get('en', 0):6.3f} {rec.get('zh', 0):6.3f} {r['mrr']:6.3f} "
              f"{r['median_ms']:10.1f}")
    knit = results["knit"]
    print(f"knit budget: mean {knit['budget_mean']:.0f} / max {knit['budget_max']} of {MAX_CHARS} characters")


if __name__ == "__main__":
    main()
