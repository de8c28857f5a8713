"""The recall eval's conversations and labelled queries (see RECALL_SOURCES.md for where each came from).

Each session is a public GitHub issue thread retold as a conversation: the thread's posts in order, condensed into
short turns (the technical content, names, versions, commands and error messages kept; the wording shortened, not
copied), alternating user and assistant. Sessions sit in three workspaces; two are compacted (their early turns are
shadowed by a `compaction/summary`), one is a fork that inherits its parent's turns, and several carry injected
context (AGENTS.md, skill catalogues) that must never be found.

Queries were written afterwards by reading the turns, in five categories: exact (a fragment as said), fuzzy (a
typo, a wrong or missing character), paraphrase (other words, some overlap), cross (the same subject in two or
more sessions: every one is expected), compacted (a turn that only the shadowed history holds). `expect` lists
(session, turn index) pairs; a query is answered at rank k when an event among the first k holds the turn. The
last 11 (`held_out`) were written after the layers were tuned on the others.
"""

from __future__ import annotations

SESSIONS = [
    {
        "id": "sess-wal", "cwd": "/work/proj/store", "title": "SQLite database is locked",
        "source": "mattn/go-sqlite3#1203, ogx-ai/ogx#4048, SOCI/soci#144, cachethq/cachet#4620, mem0ai/mem0#7192",
        "compact_through": 4,
        "turns": [
            ("user", "In WAL mode one transaction keeps writing and a second one fails with \"database is locked\" on "
                     "create, update and insert. Is this a WAL configuration problem?"),
            ("assistant", "No: WAL does not allow concurrent writes. The sqlite.org WAL page, section 2.2 on "
                          "concurrency, says there is only one WAL file, so only one writer at a time."),
            ("user", "So the maintainers closed it as answered — WAL still permits a single writer, expected SQLite "
                     "behaviour."),
            ("assistant", "Right. What helps is the busy_timeout: set it to 5s so SQLite retries instead of failing "
                          "immediately, and keep WAL so many readers and one writer run without blocking."),
            ("user", "The flake we saw was test_output_safety_guardrails_safe_content with stream=True: several "
                     "inference calls in streaming responses wrote at the same time."),
            ("assistant", "Then remove the logic that disabled the write queue for SQLite; with WAL enabled the "
                          "locking issue that motivated it is gone."),
            ("user", "Another report: a connection pool, SQLite built with SQLITE_THREADSAFE, selects are fine but "
                     "UPDATE, REPLACE and INSERT keep raising sqlite3_statement_backend::loadOne: database is locked."),
            ("assistant", "PRAGMA journal_mode=WAL only has to be set once: it is a database setting that persists "
                          "for every later connection. Simon Willison's TIL on enabling WAL mode explains it."),
            ("user", "Cachet's default SQLite connection leaves journal_mode, busy_timeout and synchronous null, so "
                     "hitting /api/schedules and /api/incidents quickly fails now and then."),
            ("assistant", "Same fix: turn on WAL and a busy timeout by default. PRAGMA busy_timeout=5000 makes "
                          "readers wait instead of erroring under concurrent sessions, heartbeats and tool calls."),
        ],
    },
    {
        "id": "sess-meili", "cwd": "/work/proj/search", "title": "Meilisearch 中文匹配",
        "source": "meilisearch/meilisearch#4075, meilisearch/meilisearch#4874",
        "turns": [
            ("user", "中文里“景点”和“经典”是两个不同的词，但拼音一样，Meilisearch 1.3.4 把它们匹配到一起了。是我用错了还是配置不对？"),
            ("assistant", "pinyin 指的是读音。同音词在汉语里意思大多完全不同，按拼音匹配会让用户迷惑。"),
            ("user", "文档我基本翻遍了也没找到相关设置。issues 3655 也提到了，在中文环境下这个问题很严重，几乎不能用。"),
            ("assistant", "Meilisearch 的中文分词用的是 jieba-rs，jingdian 同时对应景点和经典，所以会混在一起。"),
            ("user", "还有一个严重问题：搜索“待处理”能找到，但搜索“处理”却没有结果；搜“工程”也找不到“在建工程”。"),
            ("assistant", "Meilisearch 不支持后缀搜索（suffix search），所以词中间开始的片段匹配不到。"),
            ("user", "我用 jieba 验证过，是 jieba 的分词问题，对中文支持不是很友好。"),
            ("assistant", "可以看 issue 4814 里提出的几项改进建议，其中有一条评论专门讲了中文分词的处理办法。"),
        ],
    },
    {
        "id": "sess-cjk-notes", "cwd": "/work/proj/search", "title": "笔记和博客的中文搜索",
        "source": "aidenlx/cm-chs-patch#21, saicaca/fuwari#63, chenlb/mmseg4j-solr#9, Fanping/iveely.search#38, "
                  "NeedQuiet/Gridea-theme-concise#1",
        "turns": [
            ("user", "Obsidian 里怎样才能通过『电话咨询』查到笔记？能不能按『字』来分词？"),
            ("assistant", "Omnisearch 插件对中文支持不太好。我提了一个 PR，omnisearch 发布 v1.12.0 以后升级就能解决。"),
            ("user", "博客主题 Fuwari 搜索时发现中文文章不会分词。"),
            ("assistant", "Pagefind 会根据 html 元素的 lang 属性选择分词语言，但 Fuwari 没有修改 html 的 lang，所以按英文处理了。"),
            ("user", "mmseg4j 1.91 版本里，中文中间加了空格就不能正确分词：搜“你好 世界”查不到，连起来搜“你好世界”才有结果。"),
            ("assistant", "请给出索引内容和搜索内容，以及用的是哪个搜索解释器，最好附上搜索示例代码。"),
            ("user", "iveely 搜索“博子奕照明”直接匹配不到内容，分开成“博子奕 照明”才能搜到，直接搜 led 也出不来数据。"),
            ("assistant", "Gridea 的 concise 主题也类似：目前只能按关键词搜索文章内容，不能搜索标题，关键词切分也有问题，之后会修复。"),
        ],
    },
    {
        "id": "sess-mkdocs", "cwd": "/work/proj/search", "title": "Chinese search segmentation in mkdocs",
        "source": "squidfunk/mkdocs-material#3915",
        "turns": [
            ("user", "Chinese search in Material for MkDocs misses results: lunr gets the query segmented at every "
                     "character."),
            ("assistant", "I improved the recall rate with a new segmentation approach based on the data of the "
                          "search index: the segmenter is trained with the segmentation markers the build-time "
                          "segmentation left in the index."),
            ("user", "So it learns the different ways a query can be split? Accuracy might suffer though."),
            ("assistant", "Yes, recall should now be close to optimal while accuracy may have suffered. For example "
                          "违法行为 becomes 违法, 违法行为, 行为 and 合同纠纷 becomes 合同, 合同纠纷, 纠纷."),
            ("user", "And 诉讼标的? 无因管理?"),
            ("assistant", "诉讼标的 gives 诉, 诉讼, 标的; 无因管理 gives 无, 无因, 因, 管理. I am still unsure "
                          "whether always taking the longest match would be better."),
        ],
    },
    {
        "id": "sess-wayland", "cwd": "/work/proj/desktop", "title": "Blank Electron window on Wayland",
        "source": "itchio/itch#2680, TriliumNext/Trilium#3597, tuxedocomputers/tuxedo-control-center#294, "
                  "microsoft/azuredatastudio#19357",
        "compact_through": 3,
        "turns": [
            ("user", "The itch.io client on a Wayland desktop shows a window of a single colour; items can still be "
                     "clicked. Manjaro, NVIDIA GTX 1070, Nvidia 470 beta drivers, Xwayland 21.1.2, GNOME 40.2."),
            ("assistant", "Under GNOME 40.3 Wayland with an Intel GPU it works, so it is probably graphics driver "
                          "dependent. Nvidia's Wayland support is still in progress."),
            ("user", "The 470 series drivers support Wayland better and many Electron apps run well from Electron 13 "
                     "on. Could the desktop app upgrade its Electron version?"),
            ("assistant", "Try running with --disable-gpu, it helps with some graphics issues."),
            ("user", "Trilium with --enable-features=UseOzonePlatform --ozone-platform=wayland --no-gpu crashed with "
                     "a core dump: interface 'wl_output' has no event 4, trace trap."),
            ("assistant", "You passed --no-gpu, which does not exist; the flag is --disable-gpu."),
            ("user", "My bad. With --disable-gpu it draws the window, with some flickering and glitching, but usable."),
            ("assistant", "Tuxedo Control Center is blank the same way under Wayland but fine on X11; the cursor "
                          "changing over buttons shows it is a rendering issue. --disable-gpu plus "
                          "--ozone-platform=wayland lets the UI display."),
            ("user", "Azure Data Studio 1.36.1 on Fedora 36 with a 1080ti: white screen. --no-sandbox or "
                     "--disable-gpu gets it working but that is not ideal."),
        ],
    },
    {
        "id": "sess-blank", "cwd": "/work/proj/desktop", "title": "White screen after update",
        "source": "jitsi/jitsi-meet-electron#908, Mattk70/Chirpity-Electron#557, bitwarden/clients#2661",
        "turns": [
            ("user", "Jitsi Meet v2023.9.0 goes to a white screen a few seconds after start on Fedora 38 Wayland, both "
                     "the Flatpak and the AppImage."),
            ("assistant", "Strange: Ubuntu 22.04 Wayland and Fedora 38 in VirtualBox work fine for me. Maybe the "
                          "renderer crashes with your graphics driver; mine is software rendering."),
            ("user", "Nothing crashes and nothing is logged in the terminal. Stock Fedora 38 GNOME on a Lenovo X1 "
                     "Nano with Intel graphics, no nvidia drivers."),
            ("assistant", "Chirpity's AppImage on Wayland also shows an empty non-rendered window; "
                          "--ozone-platform=x11 shows the application."),
            ("user", "I can make it work on Wayland, but without GPU support. If anyone finds how to get GPU support "
                     "on Wayland, please send a pull request."),
            ("assistant", "Bitwarden on GNOME 42 Wayland with a GeForce GTX 1080: lshw -c video shows driver=nvidia; "
                          "export LIBVA_DRIVER_NAME=nvidia relaunched the AppImage but the window stayed null."),
            ("user", "app.log then only says TypeError: Object has been destroyed at WindowMain."),
        ],
    },
    {
        "id": "sess-leak", "cwd": "/work/proj/daemon", "title": "Memory leak after upgrade",
        "source": "qbittorrent/qBittorrent#21544, nickbnf/glogg#129, yuzu-emu/yuzu#5303, wanam/YouTubeAdAway#34, "
                  "edterbak/HeishaMoNR#109",
        "turns": [
            ("user", "qBittorrent's memory fills up steadily over time in an LXC with 4GB of RAM until the system "
                     "crashes."),
            ("assistant", "Do a full system update and delete the config folders. Also check it is really a leak: "
                          "the new version allocates a lot of memory, but if it stays stable it is not leaking."),
            ("user", "glogg on Windows 7: reloading over and over keeps increasing the occupied memory until the "
                     "application crashes."),
            ("assistant", "Confirmed, there is a leak in reload; a fix will be committed soon."),
            ("user", "yuzu: after the latest big update many games that worked started leaking memory, yuzu_log.zip "
                     "attached, version 498."),
            ("assistant", "There is no known memory leak for most games on yuzu 680 and the logs show something "
                          "unrelated. Re-open with a new log if it is not fixed."),
            ("user", "YouTubeAdAway latest update: the Nexus 6p on 7.1.1 freezes and crashes; downgrading one "
                     "version makes the phone usable again."),
            ("assistant", "Please post your logcat. A build of 3.8.0 compiled from source is available to test."),
            ("user", "HeishaMoNR had a memory leak after v22.20; 95% fixed in v22.27."),
        ],
    },
    {
        "id": "sess-leak-fork", "cwd": "/work/proj/daemon", "title": "Memory leak after upgrade (continued)",
        "source": "leancloud/objc-sdk#318, corona-warn-app/cwa-app-ios#4426",
        "fork_of": "sess-leak",
        "turns": [
            ("user", "BreakPad 出现了内存泄露，原因还不明确，计划先升级 BreakPad 看看，可能还需要服务端配合。"),
            ("assistant", "cwa-app-ios 也试过复现一次崩溃，调试器只显示 exe sig abort（关闭系统打印对话框时），"
                          "于是改进了一个可能的内存泄漏并加了更多日志。"),
            ("user", "加日志的目的是下次再出现时更容易定位。"),
        ],
    },
]

# Injected context (never something the user said): must not be found.
INJECTIONS = [
    ("sess-wal", "plugin", "AGENTS.md: always enable WAL mode and busy_timeout in every SQLite connection."),
    ("sess-wayland", "skill-catalog", "Skill catalogue: wayland-debug — run Electron apps with --disable-gpu."),
    ("sess-meili", "agent-instructions", "项目说明：搜索使用 jieba 分词，注意后缀搜索。"),
]

QUERIES = [
    # exact: a fragment as it was said
    {"q": "only one writer at a time", "cat": "exact", "expect": [["sess-wal", 1]]},
    {"q": "test_output_safety_guardrails_safe_content", "cat": "exact", "expect": [["sess-wal", 4]]},
    {"q": "sqlite3_statement_backend::loadOne", "cat": "exact", "expect": [["sess-wal", 6]]},
    {"q": "/api/schedules", "cat": "exact", "expect": [["sess-wal", 8]]},
    {"q": "景点", "cat": "exact", "expect": [["sess-meili", 0], ["sess-meili", 3]]},
    {"q": "后缀搜索", "cat": "exact", "expect": [["sess-meili", 5]]},
    {"q": "在建工程", "cat": "exact", "expect": [["sess-meili", 4]]},
    {"q": "电话咨询", "cat": "exact", "expect": [["sess-cjk-notes", 0]]},
    {"q": "博子奕照明", "cat": "exact", "expect": [["sess-cjk-notes", 6]]},
    {"q": "违法行为", "cat": "exact", "expect": [["sess-mkdocs", 3]]},
    {"q": "--ozone-platform=x11", "cat": "exact", "expect": [["sess-blank", 3]]},
    {"q": "Object has been destroyed", "cat": "exact", "expect": [["sess-blank", 6]]},
    {"q": "yuzu_log.zip", "cat": "exact", "expect": [["sess-leak", 4]]},
    # fuzzy: typos, a wrong or missing character
    {"q": "busy_timout", "cat": "fuzzy", "expect": [["sess-wal", 3], ["sess-wal", 9]]},
    {"q": "concurent writes", "cat": "fuzzy", "expect": [["sess-wal", 1]]},
    {"q": "jorunal_mode persists", "cat": "fuzzy", "expect": [["sess-wal", 7]]},
    {"q": "segmentaion markers", "cat": "fuzzy", "expect": [["sess-mkdocs", 1]]},
    {"q": "flickring and glitching", "cat": "fuzzy", "expect": [["sess-wayland", 6]]},
    {"q": "logcatt", "cat": "fuzzy", "expect": [["sess-leak", 7]]},
    {"q": "后坠搜索", "cat": "fuzzy", "expect": [["sess-meili", 5]]},
    {"q": "在建功程", "cat": "fuzzy", "expect": [["sess-meili", 4]]},
    {"q": "电话资询", "cat": "fuzzy", "expect": [["sess-cjk-notes", 0]]},
    {"q": "合同纠分", "cat": "fuzzy", "expect": [["sess-mkdocs", 3]]},
    {"q": "内存泄", "cat": "fuzzy", "expect": [["sess-leak-fork", 0], ["sess-leak-fork", 1]]},
    {"q": "拼音一样的同音词", "cat": "fuzzy", "expect": [["sess-meili", 0], ["sess-meili", 1]]},
    # paraphrase: other words, some overlap
    {"q": "why can two processes not write to the sqlite file simultaneously", "cat": "paraphrase",
     "expect": [["sess-wal", 0], ["sess-wal", 1]]},
    {"q": "make readers wait instead of erroring when the database is busy", "cat": "paraphrase",
     "expect": [["sess-wal", 3], ["sess-wal", 9]]},
    {"q": "homophones with the same pinyin got matched together", "cat": "paraphrase",
     "expect": [["sess-meili", 1]]},
    {"q": "搜索词的中间部分匹配不到结果", "cat": "paraphrase", "expect": [["sess-meili", 4], ["sess-meili", 5]]},
    {"q": "空格把中文词隔开以后就搜不到了", "cat": "paraphrase", "expect": [["sess-cjk-notes", 4]]},
    {"q": "博客主题没有设置页面语言导致中文不分词", "cat": "paraphrase", "expect": [["sess-cjk-notes", 2], ["sess-cjk-notes", 3]]},
    {"q": "train the query splitter from what the index build produced", "cat": "paraphrase",
     "expect": [["sess-mkdocs", 1]]},
    {"q": "the wrong command line flag for turning off the graphics card", "cat": "paraphrase",
     "expect": [["sess-wayland", 5]]},
    {"q": "app shows nothing but can be made to work by falling back to X11", "cat": "paraphrase",
     "expect": [["sess-blank", 3]]},
    {"q": "memory keeps growing every time the file is reloaded", "cat": "paraphrase", "expect": [["sess-leak", 2]]},
    {"q": "phone freezes after the newest version, going back one release fixes it", "cat": "paraphrase",
     "expect": [["sess-leak", 6]]},
    # cross: the same subject in several sessions
    {"q": "Wayland without GPU support", "cat": "cross", "expect": [["sess-wayland", 1], ["sess-blank", 4]]},
    {"q": "Wayland white screen", "cat": "cross", "expect": [["sess-wayland", 8], ["sess-blank", 0]]},
    {"q": "中文分词", "cat": "cross", "expect": [["sess-meili", 3], ["sess-cjk-notes", 2]]},
    {"q": "Intel graphics", "cat": "cross", "expect": [["sess-wayland", 1], ["sess-blank", 2]]},
    {"q": "nvidia driver on Wayland", "cat": "cross", "expect": [["sess-wayland", 1], ["sess-blank", 5]]},
    {"q": "Fedora 36 and Fedora 38 blank window", "cat": "cross", "expect": [["sess-wayland", 8], ["sess-blank", 0]]},
    # compacted: only the shadowed history holds it
    {"q": "section 2.2 concurrency", "cat": "compacted", "expect": [["sess-wal", 1]]},
    {"q": "closed it as answered", "cat": "compacted", "expect": [["sess-wal", 2]]},
    {"q": "several inference calls writing in streaming responses", "cat": "compacted", "expect": [["sess-wal", 4]]},
    {"q": "Nvidia 470 beta drivers", "cat": "compacted", "expect": [["sess-wayland", 0], ["sess-wayland", 2]]},
    {"q": "upgrade the Electron version to 13", "cat": "compacted", "expect": [["sess-wayland", 2]]},
    {"q": "graphics driver dependent", "cat": "compacted", "expect": [["sess-wayland", 1]]},
    {"q": "WAL 配置问题 database is locked", "cat": "compacted", "expect": [["sess-wal", 0]]},
    # held out: written after the tuning, never tuned on
    {"q": "Pagefind", "cat": "exact", "expect": [["sess-cjk-notes", 3]], "held_out": True},
    {"q": "LIBVA_DRIVER_NAME", "cat": "exact", "expect": [["sess-blank", 5]], "held_out": True},
    {"q": "jeiba 分词", "cat": "fuzzy", "expect": [["sess-meili", 6]], "held_out": True},
    {"q": "Omnisarch 插件", "cat": "fuzzy", "expect": [["sess-cjk-notes", 1]], "held_out": True},
    {"q": "无因管里", "cat": "fuzzy", "expect": [["sess-mkdocs", 5]], "held_out": True},
    {"q": "turning on write-ahead logging once is enough for all connections", "cat": "paraphrase",
     "expect": [["sess-wal", 7]], "held_out": True},
    {"q": "the itch client window is one solid colour", "cat": "paraphrase", "expect": [["sess-wayland", 0]],
     "held_out": True},
    {"q": "请提供索引的内容和使用的搜索解释器", "cat": "paraphrase", "expect": [["sess-cjk-notes", 5]], "held_out": True},
    {"q": "GNOME Wayland", "cat": "cross", "expect": [["sess-wayland", 1], ["sess-blank", 2]], "held_out": True},
    {"q": "streaming responses guardrails flake", "cat": "compacted", "expect": [["sess-wal", 4]], "held_out": True},
    {"q": "Try running with --disable-gpu", "cat": "compacted", "expect": [["sess-wayland", 3]], "held_out": True},
]
