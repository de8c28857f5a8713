"""Turns the authored memory questions (file + phrases that answer them) into memory_cases.json with explicit line
ranges. Run it after editing a question or a corpus file: `python tests/eval/memory_cases_gen.py`."""

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "memory_corpus"

def locate(file, phrase, after=0):
    lines = (CORPUS / file).read_text(encoding="utf-8").splitlines()
    nth = 1
    if "#" in phrase and phrase.rsplit("#", 1)[1].isdigit():
        phrase, n = phrase.rsplit("#", 1)
        nth = int(n)
    hits = [i + 1 for i, line in enumerate(lines) if phrase in line and i + 1 >= after]
    if len(hits) < nth:
        sys.exit(f"not found: {file}: {phrase!r}")
    if len(hits) > 1 and nth == 1 and not after:
        print(f"  note: {file}: {phrase!r} occurs on {hits[:6]}", file=sys.stderr)
    return hits[nth - 1]

def lines_of(file):
    return (CORPUS / file).read_text(encoding="utf-8").splitlines()

def ranges(file, spec):
    out = []
    for p in spec:
        if ".." in p:
            a, b = p.split("..")
            start = locate(file, a)
            end = locate(file, b, start)
            if end > start and lines_of(file)[start - 1].lstrip().startswith("#"):
                start += 1  # a heading line alone holds no answer: the expected lines are its body
            out.append([start, end])
        else:
            n = locate(file, p)
            out.append([n, n])
    return out

Q = []
def q(cat, lang, query, *answers):
    exp = []
    for file, spec in answers:
        exp.append({"file": file, "lines": ranges(file, spec)})
    Q.append({"category": cat, "lang": lang, "query": query, "expected": exp})

C = "neomagi-CLAUDE.md"
P = "neomagi-project_progress.md"
A = "actorforth-MEMORY.md"
B1 = "verl-bug1_fix_design.md"
G = "verl-gradient_diagnostics_checklist.md"
S = "sarvjournal-devlog.md"
F = "verl-feedback_style.md"
T = "tradingagents-project_india_edition.md"

# exact: the query's words stand in the answering entry
q("exact", "zh", "用什么管理并发任务", (C, ["asyncio.TaskGroup"]))
q("exact", "zh", "容器命令用 podman 还是 docker", (C, ["容器命令一律 podman", "Podman 容器命令（非 Docker）"]))
q("exact", "en", "which library do the PropEr property tests live in", (A, ["PropEr property tests"]))
q("exact", "en", "where is libpython3.12.so", (A, ["`libpython3.12.so` is at"]))
q("exact", "zh", "commit message 格式", (C, ["Commit message 格式..例: `feat(memory)"]))
q("exact", "en", "restore drill how many issues were recovered", ("neomagi-restore-drill.md", ["JSONL backup + restore path is verified", "Total issues (all statuses): 118"]))
q("exact", "en", "F&O monthly expiry", (T, ["F&O monthly expiry"]))
q("exact", "zh", "nanobot 代码仓库路径", ("nanobot-MEMORY.md", ["代码仓库路径"]))
q("exact", "zh", "ruff 行宽", (C, ["ruff 格式化，行宽 100"]))
q("exact", "en", "Windows PowerShell primary shell", ("bigbrain-techContext.md", ["Windows PowerShell:** Primary shell"]))
q("exact", "zh", "一个 grad_W 显存多大", (G, ["一个 grad_W ≈ V×D×4 bytes", "每个 V×d 矩阵约 933MB"]))
q("exact", "zh", "日志用什么库", (C, ["日志使用 `structlog`"]))
q("exact", "zh", "照着答案来设计", (F, ["照着答案来设计"]))
q("exact", "zh", "FSDP 下 n_params 是 shard-local 的", (B1, ["FSDP 下每卡只持有参数的 1/D 分片"]))

# paraphrase: only some of the query's words stand in the answer
q("paraphrase", "en", "how do I pip install Python packages for the erlang bridge", (A, ["Install packages: `LD_LIBRARY_PATH"]))
q("paraphrase", "zh", "数据库用的是什么", (C, ["**存储**：PostgreSQL 16", "不使用 SQLite，所有持久化走 PostgreSQL 16", "PostgreSQL 16（非 SQLite）"]))
q("paraphrase", "en", "which language should I answer in during discussions", (F, ["**Communicate in Chinese during discussion sessions.**..Respond in Chinese for conceptual"]), ("verl-user_profile.md", ["communicates in Chinese during discussion"]))
q("paraphrase", "zh", "回复用什么语言交流", (C, ["使用中文交流，技术术语保持英文"]))
q("paraphrase", "en", "why were the peg prims removed for the UR10", ("isaaclab-forge_ur10_fix.md", ["**Key Insight:**", "**Solution:** For fixed-peg robots"]))
q("paraphrase", "zh", "同一个 commit 能不能混合不相关的改动", (C, ["一个 commit 做一件事"]))
q("paraphrase", "en", "do UI changes need snapshot tests", ("codex-AGENTS.md", ["**Requirement:** any change that affects user-visible UI..is easy to review and future diffs stay visual."]))
q("paraphrase", "en", "which branch is the development branch of the memory bank", ("bigbrain-techContext.md", ["`memory-bank-dev` - Development branch", "Development work occurs on the `memory-bank-dev` branch"]))
q("paraphrase", "zh", "遇到不确定的设计决策怎么办", (C, ["不确定的设计决策，先写 TODO 注释标记"]))
q("paraphrase", "en", "how to avoid wasting compute on runs where the LR was wrong", (F, ["**Always verify alpha_t logs match expectations before analyzing results.**..**How to apply**: For any new experiment config"]))
q("paraphrase", "zh", "计划文件放在哪个目录", (C, ["计划文件统一放 `dev_docs/plans/`"]))
q("paraphrase", "en", "how long does the NSE client keep its cache", (T, ["disk cache (4hr TTL)"]))
q("paraphrase", "zh", "Tester 什么时候才能开始审查", ("neomagi-m2-pm.md", ["规则：Tester 必须等 push 后 merge 再审查"]))
q("paraphrase", "en", "why did we drop the docker dependency", ("aieditor-progress.md", ["**Removed Qdrant**: Simplified setup by removing Docker dependency"]))

# status: how far did X get, done / blocked / in progress, in the entry's own words
q("status", "zh", "M3 做到哪一步了", (P, ["## 2026-02-24 (local) | M3#2..Risk: 无；ParadeDB", "## 2026-02-25 00:40 (local) | M3..历史污染会话"]))
q("status", "zh", "M1.2 评审做到哪一步了", (P, ["## 2026-02-18 23:50 (local) | M1.2..F4 流式回退为已知体验回退"]))
q("status", "en", "how far did the India edition get", (T, ["Phase 1 (Indian market data layer) is **complete**", "Phase 2 (TradeSignal schema"]), ("tradingagents-MEMORY.md", ["Phase 1 (India data layer) complete"]))
q("status", "en", "is the watcher regression test done yet", ("clinewiz-progress.md", ["Settings wiring polish and watcher regression test scaffolding", "- Regression test: memoryBank.path handling"]))
q("status", "zh", "Route B 做到哪了", (G, ["**Step 2** (暂缓)"]))
q("status", "zh", "bug1 修复完成了吗", (B1, ["设计 + 实现均已完成 2026-04-20", "## 实现状态：**已完成**（2026-04-20）..修改了 4 个文件"]), ("verl-MEMORY.md", ["2026-04-20 全部完成"]))
q("status", "en", "is the PG-Moment design still being pursued", ("verl-MEMORY.md", ["已关闭：PG-Moment 方案"]))
q("status", "en", "is workflow testing done or still pending", ("bigbrain-progress.md", ["**Workflow Testing**: Formal validation of workflow effectiveness is pending"]))
q("status", "zh", "M1.5 进行中还是已完成", (P, ["## 2026-02-21 (local) | M1.5..Risk: 无"]))
q("status", "en", "are LSP diagnostics done yet", (A, ["TODO: LSP diagnostics, incremental inference", "TODO: Diagnostics (stack underflow detection)"]))
q("status", "zh", "M3 的 Gate 都关闭了吗", ("neomagi-m3-gate_state.md", ["| G-M3-P0 |..| G-M3-FINAL |"]),
  ("neomagi-m3-pm.md", ["| G-M3-FINAL | PM 自检", "M3 Persistent Memory 五个 Phase 全部通过 Gate 验收"]),
  (P, ["Done: M3 持久记忆 5 Phase 全部通过 Gate 验收"]))
q("status", "en", "is self-hosted compilation finished", (A, ["DONE: Self-hosted compilation pipeline", "DONE: 100% self-hosted bootstrap", "**Self-hosted pipeline**", "**Full self-hosted bootstrap verified**"]))
q("status", "zh", "ParadeDB pg_search 风险现在怎么样了", (P, ["Risk: 无；ParadeDB pg_search BM25 为已知 R1 风险"]), ("neomagi-m3-pm.md", ["ParadeDB `pg_search` BM25 索引为计划中的 R1 已知风险"]))
q("status", "en", "which test failure on a4_version3 still needs investigation", (A, ["Pre-existing `af_compiler_tests:sub_clause_test_` failure on a4_version3", "Pre-existing test failure: `af_compiler_tests:sub_clause_test_`"]))
q("status", "zh", "build_group_masks 现在什么 status", (G, ["Status: ☐"]))

# heading vs body: the query's words stand in a heading (or a file title) elsewhere; the answer is a body entry
q("heading_trap", "en", "git branch for stable clean installs", ("bigbrain-techContext.md", ["`main` - Stable \"clean install\" version", "The `main` branch is reserved for stable, clean installations"]))
q("heading_trap", "zh", "测试里 LLM 调用用 mock 吗", (C, ["LLM 调用使用 mock"]))
q("heading_trap", "en", "what to run after changing Rust dependencies", ("codex-AGENTS.md", ["If you change Rust dependencies..repo root to refresh `MODULE.bazel.lock`"]))
q("heading_trap", "zh", "异步 I/O 有什么规则", (C, ["所有 I/O 操作必须 async", "禁止在 async 函数中调用同步阻塞 I/O"]))
q("heading_trap", "en", "known issue with stale beam files", (A, ["Stale beam files"]))
q("heading_trap", "en", "next steps after phase 2 completion", ("bigbrain-summary-2025-03-24.md", ["Update activeContext.md to reflect Phase 2 completion", "Begin implementing Phase 3"]))
q("heading_trap", "zh", "过程经验里 Tester 报告的问题", ("neomagi-m2-pm.md", ["| Tester 报告未 commit+push"]))
q("heading_trap", "en", "memory strength indicators decision", ("bigbrain-summary-2025-03-24.md", ["Established memory strength indicators"]))
q("heading_trap", "zh", "项目状态 当前基线多少测试", (C, ["当前基线：686 tests 全绿"]))
q("heading_trap", "en", "how are quoted strings handled in the type system", (A, ["String: wraps Erlang binaries"]))
q("heading_trap", "en", "TUI style conventions", ("codex-AGENTS.md", ["See `codex-rs/tui/styles.md`."]))
q("heading_trap", "zh", "Bug D calib_groups 负数怎么修的", (B1, ["`calib_groups = max(0, min(calib_groups, n_groups - 2))`"]))
q("heading_trap", "zh", "显存注意 同时存几个矩阵", (G, ["当前同时存 4 个 ≈ 3.7GB", "当前实现用 4 atomic accumulators (~3.7GB)"]))

# entry boundaries: ### blocks with their body, paragraphs after --- and comments, table rows, code, front matter
q("boundary", "en", "what did I do on Feb 14, 2025 at 22:26", (S, ["### Feb 14, 2025 22:26..- Cleaned up unused code"]))
q("boundary", "en", "Mar 03, 2025 14:07", (S, ["### Mar 03, 2025 14:07..- Fixed form validation"]))
q("boundary", "en", "Feb 05, 2025 08:01 what was fixed", (S, ["### Feb 05, 2025 08:01..- Fixed memory leak"]))
q("boundary", "zh", "Mar 22, 2025 14:00 做了什么", (S, ["### Mar 22, 2025 14:00..- Fixed memory leak"]))
q("boundary", "en", "TL;DR of the BIG-Autonomous session", ("bigbrain-session-autonomous-2025-03-25.md", ["> **TL;DR:**"]))
q("boundary", "en", "when was the session committed to memory", ("bigbrain-session-autonomous-2025-03-25.md", ["*Session committed to memory at"]))
q("boundary", "en", "who updates the long-term memory file automatically", ("nanobot-MEMORY.md", ["*This file is automatically updated by nanobot.*"]))
q("boundary", "zh", "M3 最终测试总数", ("neomagi-m3-pm.md", ["最终测试总数：468 tests"]))
q("boundary", "zh", "反漂移离线评估属于什么验收", ("neomagi-m2-pm.md", ["反漂移离线评估（"]))
q("boundary", "en", "cosine from norms formula", (G, ["⟨g_a, g_b⟩ = (‖g_{a∪b}‖²..cancel(a,b) = 1 -"]))
q("boundary", "zh", "Phase 0 EchoTool 签名问题后来定了什么规则", ("neomagi-m3-pm.md", ["| Phase 0 EchoTool/FailingTool 未适配新签名"]))
q("boundary", "en", "r_boot default value", (B1, ["| r_boot | 0.05 |"]))
q("boundary", "zh", "handoff 插值过渡多少步", (B1, ["接下来 M=10 步做插值过渡", "| M | 10 | handoff 插值步数 |"]))
q("boundary", "zh", "Bug C 删除了哪一行", (B1, ["删除 `r_min = self.config.optim.get"]))

# Held out: written after the engine was tuned on the questions above, run once, never tuned on.
HOLDOUT_FROM = len(Q)
q("exact", "zh", "Telegram API 要不要设 timeout", (C, ["外部服务调用（数据库、Telegram API）必须有 timeout"]))
q("paraphrase", "en", "what to check in the first 15-20 steps of a new experiment", (F, ["**Always verify alpha_t logs..**How to apply**: For any new experiment config"]))
q("status", "zh", "Phase 4 Evolution Loop 做到哪了", ("neomagi-m3-pm.md", ["| Phase 4: Evolution Loop |"]), (P, ["  - Phase 4: Evolution Loop"]))
q("heading_trap", "en", "known issue with directory naming", ("bigbrain-progress.md", ["**Directory Naming Inconsistency**..other directories use lowercase"]))
q("boundary", "zh", "G-M3-P2 第一次为什么 FAIL", ("neomagi-m3-pm.md", ["| G-M3-P2 |"]))
q("exact", "en", "ROCE shown in Crores", (T, ["screener_fundamentals computes ROCE"]))
q("paraphrase", "zh", "新 worktree 为什么要重新装依赖", ("neomagi-m1.5-developer.md", ["Worktree 中 `node_modules`"]))
q("status", "en", "is the VS Code extension for ActorForth done", (A, ["TODO: VS Code extension"]))
q("heading_trap", "zh", "用户用语音提问时怎么回复", ("nanobot-MEMORY.md", ["当用户使用语音提问时"]))
q("boundary", "en", "which in-content markers drive the automation", ("bigbrain-session-autonomous-2025-03-25.md", ["2. **In-Content Markers**..<!-- @automation:skip-reorganize -->"]))
for case in Q[HOLDOUT_FROM:]:
    case["holdout"] = True

out = HERE / "memory_cases.json"
out.write_text("[\n" + ",\n".join(json.dumps(case, ensure_ascii=False) for case in Q) + "\n]\n", encoding="utf-8")
print(len(Q), Counter(x["category"] for x in Q), Counter(x["lang"] for x in Q))
