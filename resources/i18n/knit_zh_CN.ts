<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AllView</name>
    <message numerus="yes">
        <source>%1 / %n items</source>
        <translation>
            <numerusform>%1 / %n 项</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n items</source>
        <translation>
            <numerusform>%n 项</numerusform>
        </translation>
    </message>
    <message>
        <source>Docs %1 / %2</source>
        <translation>文档 %1 / %2</translation>
    </message>
    <message>
        <source>View all →</source>
        <translation>查看全部 →</translation>
    </message>
    <message>
        <source>Images &amp; video %1</source>
        <translation>图片与视频 %1</translation>
    </message>
    <message>
        <source>Nothing in this workspace yet.</source>
        <translation>这个工作区里还什么都没有。</translation>
    </message>
</context>
<context>
    <name>DocumentList</name>
    <message>
        <source>(no summary)</source>
        <translation>（没有正文摘要）</translation>
    </message>
    <message>
        <source>Click to preview here · double-click to open in a larger window</source>
        <translation>单击就地预览 · 双击在更大的窗口中打开</translation>
    </message>
    <message>
        <source>from %1</source>
        <translation>来自 %1</translation>
    </message>
    <message>
        <source>new</source>
        <translation>新</translation>
    </message>
</context>
<context>
    <name>DocumentListModel</name>
    <message numerus="yes">
        <source>%1 / %n docs</source>
        <translation>
            <numerusform>%1 / %n 篇</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n docs</source>
        <translation>
            <numerusform>%n 篇</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FolderDrop</name>
    <message>
        <source>Use this folder</source>
        <translation>使用这个文件夹</translation>
    </message>
    <message>
        <source>Make %1 the workspace?</source>
        <translation>把 %1 设为工作区？</translation>
    </message>
    <message>
        <source>Pinned, Knit opens this folder every time (change it in Settings); otherwise only until you quit.</source>
        <translation>固定后，Knit 每次都打开这个文件夹（可在设置中更改）；否则只用到退出为止。</translation>
    </message>
    <message>
        <source>Pin as the workspace</source>
        <translation>固定为工作区</translation>
    </message>
    <message>
        <source>Only for now</source>
        <translation>仅本次</translation>
    </message>
</context>
<context>
    <name>HeaderBar</name>
    <message>
        <source>No workspace</source>
        <translation>没有工作区</translation>
    </message>
    <message>
        <source>Demo conversation</source>
        <translation>演示对话</translation>
    </message>
    <message>
        <source>Conversation from %1</source>
        <translation>来自 %1 的对话</translation>
    </message>
    <message>
        <source>Started with a fixed conversation; DSH sessions are not followed</source>
        <translation>以固定的对话启动；不跟随 DSH 会话</translation>
    </message>
    <message>
        <source>Follow the active session</source>
        <translation>跟随当前活跃会话</translation>
    </message>
    <message>
        <source>No DSH session found</source>
        <translation>没有找到 DSH 会话</translation>
    </message>
    <message>
        <source>Relevant</source>
        <translation>相关</translation>
    </message>
    <message>
        <source>Sort by relevance to the current conversation (local keyword matching, no model call)</source>
        <translation>按与当前对话的相关性排序（纯本地关键词匹配，不调模型）</translation>
    </message>
    <message>
        <source>Nothing to rank by yet: listed by time until the conversation (or a topic) has words to match</source>
        <translation>还没有可排序的内容：在对话（或主题）出现可匹配的词之前按时间排列</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
    <message>
        <source>Both</source>
        <translation>两者</translation>
    </message>
    <message>
        <source>Rank over</source>
        <translation>排序范围</translation>
    </message>
    <message>
        <source>Library folders rank beside the workspace</source>
        <translation>资料库文件夹与工作区一起排序</translation>
    </message>
    <message>
        <source>No library folder yet: add one in Settings → Library</source>
        <translation>还没有资料库文件夹：请在 设置 → 资料库 中添加</translation>
    </message>
    <message>
        <source>Rank over the workspace, the library folders, or both</source>
        <translation>在工作区、资料库文件夹或两者中排序</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最新</translation>
    </message>
    <message>
        <source>Sort by file modified time, newest first</source>
        <translation>按文件修改时间倒序</translation>
    </message>
    <message>
        <source>Refresh now</source>
        <translation>立即刷新</translation>
    </message>
    <message>
        <source>Docs</source>
        <translation>文档</translation>
    </message>
    <message>
        <source>Images &amp; video</source>
        <translation>图片与视频</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Switch which artifacts are listed</source>
        <translation>切换要列出的产物类型</translation>
    </message>
    <message>
        <source>Filter title / summary / path</source>
        <translation>过滤标题 / 摘要 / 路径</translation>
    </message>
    <message>
        <source>Filter documents</source>
        <translation>过滤文档</translation>
    </message>
    <message>
        <source>What are you working on? (replaces the conversation while set)</source>
        <translation>你在做什么？（填写后代替对话作为排序依据）</translation>
    </message>
    <message>
        <source>Topic</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Open in file manager</source>
        <translation>在文件管理器中打开</translation>
    </message>
    <message>
        <source>More</source>
        <translation>更多</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Always on top</source>
        <translation>窗口置顶</translation>
    </message>
    <message>
        <source>Dock to the left edge</source>
        <translation>停靠到屏幕左侧</translation>
    </message>
    <message>
        <source>Dock to the right edge</source>
        <translation>停靠到屏幕右侧</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Memory…</source>
        <translation>记忆库…</translation>
    </message>
    <message>
        <source>Conversation history…</source>
        <translation>对话历史…</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>HiddenFooter</name>
    <message>
        <source>Hidden (%1)</source>
        <translation>已隐藏（%1）</translation>
    </message>
    <message>
        <source>Documents you hid; choose one to show it again</source>
        <translation>你隐藏的文档；选一个即可重新显示</translation>
    </message>
    <message>
        <source>Show %1 again</source>
        <translation>重新显示 %1</translation>
    </message>
    <message>
        <source>Show all hidden documents</source>
        <translation>显示全部隐藏的文档</translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>Type what you remember: a few words, a fragment, even with a typo.</source>
        <translation>输入你记得的内容：几个词、一个片段，有错字也可以。</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>正在搜索…</translation>
    </message>
    <message>
        <source>The history index is not ready yet.</source>
        <translation>历史索引还没有准备好。</translation>
    </message>
    <message>
        <source>Cannot search this scope: %1</source>
        <translation>无法在这个范围里搜索：%1</translation>
    </message>
    <message>
        <source>(untitled)</source>
        <translation>（无标题）</translation>
    </message>
    <message>
        <source>(no folder)</source>
        <translation>（无文件夹）</translation>
    </message>
    <message>
        <source>exact words</source>
        <translation>原词命中</translation>
    </message>
    <message>
        <source>fuzzy match</source>
        <translation>模糊命中</translation>
    </message>
    <message>
        <source>Turns %1–%2 · %3</source>
        <translation>第 %1–%2 条 · %3</translation>
    </message>
    <message>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>助手</translation>
    </message>
    <message>
        <source>%1 moment(s) in %2 conversation(s).</source>
        <translation>%2 个对话中有 %1 处相关内容。</translation>
    </message>
    <message>
        <source>Nothing found. Try other words, or a wider scope.</source>
        <translation>没有找到。换个说法，或者扩大范围试试。</translation>
    </message>
    <message>
        <source>Opening…</source>
        <translation>正在打开…</translation>
    </message>
    <message>
        <source>That conversation is no longer on disk.</source>
        <translation>这个对话已不在磁盘上。</translation>
    </message>
    <message>
        <source>(compacted)</source>
        <translation>（已压缩）</translation>
    </message>
    <message>
        <source>Quote copied.</source>
        <translation>引文已复制。</translation>
    </message>
    <message>
        <source>%1 messages from %2 conversations indexed, compacted ones included.</source>
        <translation>已索引 %2 个对话中的 %1 条消息（含已压缩的）。</translation>
    </message>
    <message>
        <source>%1 damaged part(s) of the logs were skipped.</source>
        <translation>跳过了日志中 %1 处损坏的部分。</translation>
    </message>
    <message>
        <source>Knit — conversation history</source>
        <translation>Knit — 对话历史</translation>
    </message>
    <message>
        <source>What was said? A few words, a fragment, even with a typo</source>
        <translation>说过什么？几个词、一个片段，有错字也可以</translation>
    </message>
    <message>
        <source>Search past conversations</source>
        <translation>搜索过去的对话</translation>
    </message>
    <message>
        <source>This conversation</source>
        <translation>当前对话</translation>
    </message>
    <message>
        <source>This workspace</source>
        <translation>当前工作区</translation>
    </message>
    <message>
        <source>All conversations</source>
        <translation>所有对话</translation>
    </message>
    <message>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <source>Open conversation</source>
        <translation>打开对话</translation>
    </message>
    <message>
        <source>Copy quote</source>
        <translation>复制引文</translation>
    </message>
    <message>
        <source>Show earlier turns</source>
        <translation>显示更早的内容</translation>
    </message>
    <message>
        <source>Show later turns</source>
        <translation>显示更晚的内容</translation>
    </message>
    <message>
        <source>Open a result to read the conversation around it.</source>
        <translation>打开一条结果，阅读它前后的对话。</translation>
    </message>
</context>
<context>
    <name>ItemActions</name>
    <message>
        <source>No app is registered to open %1</source>
        <translation>没有可打开 %1 的应用</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open with system app</source>
        <translation>用系统应用打开</translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <source>Copy relative path</source>
        <translation>复制相对路径</translation>
    </message>
    <message>
        <source>Copy as Markdown link</source>
        <translation>复制为 Markdown 链接</translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation>取消固定</translation>
    </message>
    <message>
        <source>Pin to the top</source>
        <translation>固定到顶部</translation>
    </message>
    <message>
        <source>Hide from the list</source>
        <translation>从列表中隐藏</translation>
    </message>
</context>
<context>
    <name>LibraryFolders</name>
    <message>
        <source>(missing)</source>
        <translation>（不存在）</translation>
    </message>
    <message numerus="yes">
        <source>%n folder(s) answer beside the workspace (knit_ask, knit_search, `knit-desktop ask`).</source>
        <translation>
            <numerusform>%n 个文件夹与工作区一起作答（knit_ask、knit_search、`knit-desktop ask`）。</numerusform>
        </translation>
    </message>
    <message>
        <source>No library folders yet: add the folders that hold your papers, manuals or specs.</source>
        <translation>还没有资料库文件夹：添加存放论文、手册或规格文档的文件夹。</translation>
    </message>
    <message>
        <source>Not added: %1 is not a folder.</source>
        <translation>未添加：%1 不是文件夹。</translation>
    </message>
    <message>
        <source>Not added: %1 is in the library already.</source>
        <translation>未添加：%1 已在资料库中。</translation>
    </message>
    <message>
        <source>Not added: %1 is the root of the file system, your home folder or a system folder.</source>
        <translation>未添加：%1 是文件系统根目录、你的主目录或系统文件夹。</translation>
    </message>
    <message>
        <source>Not added: %1</source>
        <translation>未添加：%1</translation>
    </message>
    <message>
        <source>Choose a library folder</source>
        <translation>选择资料库文件夹</translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Scanning the workspace…</source>
        <translation>正在扫描工作区…</translation>
    </message>
    <message>
        <source>No workspace yet — start a DSH session, or choose a folder in Settings.</source>
        <translation>还没有工作区 —— 开始一个 DSH 会话，或在设置中选择文件夹。</translation>
    </message>
    <message>
        <source>No documents match “%1”.</source>
        <translation>没有匹配「%1」的文档。</translation>
    </message>
    <message>
        <source>No images or videos in this workspace yet.</source>
        <translation>这个工作区里还没有图片或视频。</translation>
    </message>
    <message>
        <source>No Markdown documents in this workspace yet.</source>
        <translation>这个工作区里还没有 Markdown 文档。</translation>
    </message>
    <message>
        <source>Knit — recent documents</source>
        <translation>Knit 最近文档</translation>
    </message>
    <message>
        <source>Knit — documents by relevance</source>
        <translation>Knit 相关文档</translation>
    </message>
    <message>
        <source>Recent documents</source>
        <translation>最近文档</translation>
    </message>
    <message>
        <source>Images and videos</source>
        <translation>图片与视频</translation>
    </message>
</context>
<context>
    <name>MediaGrid</name>
    <message>
        <source>Cannot show it: %1</source>
        <translation>无法显示：%1</translation>
    </message>
    <message>
        <source>video</source>
        <translation>视频</translation>
    </message>
    <message>
        <source>image</source>
        <translation>图片</translation>
    </message>
</context>
<context>
    <name>MediaGridModel</name>
    <message numerus="yes">
        <source>%1 / %n media</source>
        <translation>
            <numerusform>%1 / %n 个媒体</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n media</source>
        <translation>
            <numerusform>%n 个媒体</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n 条</numerusform>
        </translation>
    </message>
    <message>
        <source>Created: %1</source>
        <translation>已创建：%1</translation>
    </message>
    <message>
        <source>Left alone (already there): %1</source>
        <translation>未改动（已存在）：%1</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>记忆库</translation>
    </message>
    <message>
        <source>Search libraries and chapters</source>
        <translation>按库名 / 章节名筛选</translation>
    </message>
    <message>
        <source>Library / chapter</source>
        <translation>库 / 章节</translation>
    </message>
    <message>
        <source>File / lines</source>
        <translation>文件 / 行号</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>估算 token</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>🗂 No memory files yet in %1. Start from a template, or put Markdown files there yourself.</source>
        <translation>🗂 %1 里还没有找到任何记忆库。可以一键生成一套起手模板，也可以自己放 Markdown 文件进来。</translation>
    </message>
    <message>
        <source>Three to start
(preferences, projects, environment)</source>
        <translation>三本起手
偏好 / 项目 / 环境</translation>
    </message>
    <message>
        <source>All eight
(+ software, network, commands, cleanup, fixes)</source>
        <translation>全部八本
再加软件 / 网络 / 命令 / 清理 / 排障</translation>
    </message>
    <message>
        <source>Three in English
(Preferences, Projects, Environment)</source>
        <translation>英文三本
Preferences / Projects / Environment</translation>
    </message>
</context>
<context>
    <name>NewcomerPanel</name>
    <message>
        <source>Choose the project folder</source>
        <translation>选择项目文件夹</translation>
    </message>
    <message>
        <source>No workspace yet</source>
        <translation>还没有工作区</translation>
    </message>
    <message>
        <source>Knit keeps a project folder&apos;s documents ranked by what your conversation with the agent is about. Choose the folder, or look around the demo first.</source>
        <translation>Knit 按你和智能体正在聊的内容，为项目文件夹里的文档排序。选择一个文件夹，或先看看演示。</translation>
    </message>
    <message>
        <source>Choose folder…</source>
        <translation>选择文件夹…</translation>
    </message>
    <message>
        <source>Open the demo</source>
        <translation>打开演示</translation>
    </message>
    <message>
        <source>With DSH: start a session in your project folder and Knit follows it. To give the agent the same ranking, add the row that %1 prints to DSH&apos;s cordis.patch.yml.</source>
        <translation>配合 DSH：在项目文件夹中开始一个会话，Knit 会自动跟随。若要让智能体得到同样的排序，把 %1 输出的那一行加入 DSH 的 cordis.patch.yml。</translation>
    </message>
</context>
<context>
    <name>PreviewPane</name>
    <message>
        <source>Loading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>no workspace is open</source>
        <translation>没有打开的工作区</translation>
    </message>
    <message>
        <source>Cannot show this document: %1</source>
        <translation>无法显示这篇文档：%1</translation>
    </message>
    <message>
        <source>it links outside the workspace</source>
        <translation>它链接到工作区之外</translation>
    </message>
    <message>
        <source>No preview for this kind of file yet.</source>
        <translation>暂时无法预览这种文件。</translation>
    </message>
    <message>
        <source>(large file — showing the first 512 KB)</source>
        <translation>（文件较大，仅预览前 512 KB）</translation>
    </message>
    <message>
        <source>Page %1 of %2</source>
        <translation>第 %1 / %2 页</translation>
    </message>
    <message>
        <source>Referenced by %1 · links to %2</source>
        <translation>被引用 %1 · 引用了 %2</translation>
    </message>
    <message>
        <source>Referenced by</source>
        <translation>被引用</translation>
    </message>
    <message>
        <source>Links to</source>
        <translation>引用了</translation>
    </message>
    <message>
        <source>Not referenced by anything · links to no other document</source>
        <translation>没有被引用 · 没有引用别的文档</translation>
    </message>
    <message>
        <source>Copy citation</source>
        <translation>复制引用</translation>
    </message>
    <message>
        <source>Copy the path and the matched lines (or page) to the clipboard</source>
        <translation>把路径和匹配的行号（或页码）复制到剪贴板</translation>
    </message>
    <message>
        <source>Open locally</source>
        <translation>在本地打开</translation>
    </message>
    <message>
        <source>Open this document in your default app</source>
        <translation>用系统默认应用打开这篇文档</translation>
    </message>
    <message>
        <source>Exit fullscreen</source>
        <translation>退出全屏</translation>
    </message>
    <message>
        <source>Fullscreen</source>
        <translation>全屏</translation>
    </message>
    <message>
        <source>Exit fullscreen (Esc)</source>
        <translation>退出全屏（Esc）</translation>
    </message>
    <message>
        <source>Read fullscreen</source>
        <translation>全屏阅读</translation>
    </message>
    <message>
        <source>Close preview</source>
        <translation>收起预览</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Back to the document you followed a link from (Alt+←)</source>
        <translation>回到点链接之前的文档（Alt+←）</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前进</translation>
    </message>
    <message>
        <source>Forward again (Alt+→)</source>
        <translation>再前进（Alt+→）</translation>
    </message>
    <message>
        <source>Open in file manager</source>
        <translation>在文件管理器中打开</translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <source>Next page</source>
        <translation>下一页</translation>
    </message>
</context>
<context>
    <name>Problem</name>
    <message>
        <source>the file is gone</source>
        <translation>文件已不存在</translation>
    </message>
    <message>
        <source>it leads outside the workspace</source>
        <translation>它指向工作区之外</translation>
    </message>
    <message>
        <source>not a readable image</source>
        <translation>不是可读取的图片</translation>
    </message>
    <message>
        <source>too large to make a thumbnail of (%1 pixels)</source>
        <translation>太大，无法生成缩略图（%1 像素）</translation>
    </message>
    <message>
        <source>no picture could be read from this video in time</source>
        <translation>未能及时从该视频读取画面</translation>
    </message>
    <message>
        <source>not a playable video</source>
        <translation>不是可播放的视频</translation>
    </message>
    <message>
        <source>the video has no picture</source>
        <translation>该视频没有画面</translation>
    </message>
    <message>
        <source>encrypted PDF (a password is required)</source>
        <translation>加密的 PDF（需要密码）</translation>
    </message>
    <message>
        <source>it cannot be read</source>
        <translation>无法读取</translation>
    </message>
    <message>
        <source>it failed</source>
        <translation>操作失败</translation>
    </message>
    <message>
        <source>binary content in a text file</source>
        <translation>文本文件中含有二进制内容</translation>
    </message>
    <message>
        <source>too large to read (%1)</source>
        <translation>文件太大，未读取（%1）</translation>
    </message>
    <message>
        <source>refused: a part inflates beyond the limits (%1)</source>
        <translation>已拒绝：其中一个部件解压后超出限制（%1）</translation>
    </message>
    <message>
        <source>refused: more than %1 parts</source>
        <translation>已拒绝：部件多于 %1 个</translation>
    </message>
    <message>
        <source>refused: the %1 declares XML entities, which can expand without bound</source>
        <translation>已拒绝：这个 %1 声明了 XML 实体，展开后可能无限膨胀</translation>
    </message>
    <message>
        <source>encrypted %1 (a password is required)</source>
        <translation>已加密的 %1（需要密码）</translation>
    </message>
    <message>
        <source>no text in this %1</source>
        <translation>这个 %1 里没有文字</translation>
    </message>
    <message>
        <source>no text layer — a scanned %1?</source>
        <translation>没有文字层——是扫描的 %1 吗？</translation>
    </message>
    <message>
        <source>no text: a comic book archive holds only images</source>
        <translation>没有文字：漫画归档里只有图片</translation>
    </message>
</context>
<context>
    <name>RecallStrip</name>
    <message>
        <source>From earlier conversations</source>
        <translation>来自之前的对话</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Hide</source>
        <translation>隐藏</translation>
    </message>
</context>
<context>
    <name>RelativeTime</name>
    <message>
        <source>just now</source>
        <translation>刚刚</translation>
    </message>
    <message numerus="yes">
        <source>%n min ago</source>
        <translation>
            <numerusform>%n分钟前</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n h ago</source>
        <translation>
            <numerusform>%n小时前</numerusform>
        </translation>
    </message>
    <message>
        <source>yesterday</source>
        <translation>昨天</translation>
    </message>
    <message numerus="yes">
        <source>%n d ago</source>
        <translation>
            <numerusform>%n天前</numerusform>
        </translation>
    </message>
    <message>
        <source>%1/%2</source>
        <translation>%1月%2日</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Choose the workspace folder</source>
        <translation>选择工作区文件夹</translation>
    </message>
    <message>
        <source>Use this folder as the workspace?</source>
        <translation>把这个文件夹用作工作区？</translation>
    </message>
    <message>
        <source>%1 is the root of the file system, your home folder or a system folder. Knit would read every document in it, which can take long and include files that are not a project&apos;s. Use it anyway?</source>
        <translation>%1 是文件系统的根目录、你的主文件夹或系统文件夹。Knit 会读取其中的每一份文档，这可能耗时很久，还会读到不属于任何项目的文件。仍然使用它吗？</translation>
    </message>
    <message>
        <source>Knit settings</source>
        <translation>Knit 设置</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>DSH home</source>
        <translation>DSH 主目录</translation>
    </message>
    <message>
        <source>Follow the DSH session&apos;s folder</source>
        <translation>跟随 DSH 会话的文件夹</translation>
    </message>
    <message>
        <source>Always this folder:</source>
        <translation>固定使用这个文件夹：</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Default: $DSH_HOME or ~/.dsh</source>
        <translation>默认：$DSH_HOME 或 ~/.dsh</translation>
    </message>
    <message>
        <source>Keep the window on top</source>
        <translation>窗口保持在最前</translation>
    </message>
    <message>
        <source>Show the tray icon</source>
        <translation>显示托盘图标</translation>
    </message>
    <message>
        <source>Show usage (what the session read of the last pack)</source>
        <translation>显示使用情况（会话读了上一个上下文包中的哪些文档）</translation>
    </message>
    <message>
        <source>Memory folder</source>
        <translation>记忆库目录</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>资料库</translation>
    </message>
    <message>
        <source>Default: &lt;DSH home&gt;/memory</source>
        <translation>默认：&lt;DSH 主目录&gt;/memory</translation>
    </message>
    <message>
        <source>Sticky notes</source>
        <translation>便利贴</translation>
    </message>
    <message>
        <source>Capsule</source>
        <translation>胶囊</translation>
    </message>
    <message>
        <source>Rounded</source>
        <translation>圆角</translation>
    </message>
    <message>
        <source>Square</source>
        <translation>方形</translation>
    </message>
    <message>
        <source>Circle</source>
        <translation>圆形</translation>
    </message>
    <message>
        <source>Follow the theme</source>
        <translation>跟随主题</translation>
    </message>
    <message>
        <source>Sea blue</source>
        <translation>海蓝</translation>
    </message>
    <message>
        <source>Mist purple</source>
        <translation>雾紫</translation>
    </message>
    <message>
        <source>Moss green</source>
        <translation>苔绿</translation>
    </message>
    <message>
        <source>Amber</source>
        <translation>琥珀</translation>
    </message>
    <message>
        <source>Rose</source>
        <translation>玫红</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>小</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>Large</source>
        <translation>大</translation>
    </message>
    <message>
        <source>Reset position</source>
        <translation>复位到右下角</translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <source>Indexing %1 / %2</source>
        <translation>正在索引 %1 / %2</translation>
    </message>
    <message>
        <source>Watching by polling (the system refused more folder watches)</source>
        <translation>以轮询方式监视（系统拒绝了更多的文件夹监视）</translation>
    </message>
    <message>
        <source>Indexing was cancelled</source>
        <translation>索引已取消</translation>
    </message>
    <message>
        <source>Could not open the workspace: %1</source>
        <translation>无法打开工作区：%1</translation>
    </message>
    <message>
        <source>Something went wrong in the background: %1</source>
        <translation>后台任务出错：%1</translation>
    </message>
</context>
<context>
    <name>StickyNote</name>
    <message>
        <source>No memory files yet: create one to write into.</source>
        <translation>还没有记忆文件：先建一个才能写入。</translation>
    </message>
    <message>
        <source>Preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <source>Project</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境</translation>
    </message>
    <message>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <source>To do</source>
        <translation>待办</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>笔记</translation>
    </message>
    <message>
        <source>📌 Worth remembering?</source>
        <translation>📌 值得记下来吗</translation>
    </message>
    <message>
        <source>Remember</source>
        <translation>记住</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>不要</translation>
    </message>
    <message>
        <source>Write it to</source>
        <translation>写到</translation>
    </message>
    <message>
        <source>The memory (you can edit it)</source>
        <translation>要记住的内容（可以修改）</translation>
    </message>
</context>
<context>
    <name>Tiers</name>
    <message>
        <source>Pinned</source>
        <translation>已固定</translation>
    </message>
    <message>
        <source>Primary</source>
        <translation>主要上下文</translation>
    </message>
    <message>
        <source>Supporting</source>
        <translation>辅助上下文</translation>
    </message>
    <message>
        <source>Related</source>
        <translation>相关上下文</translation>
    </message>
    <message>
        <source>Other documents</source>
        <translation>其他相关文档</translation>
    </message>
    <message>
        <source>kept on top by you</source>
        <translation>由你固定在顶部</translation>
    </message>
    <message>
        <source>read first</source>
        <translation>先看</translation>
    </message>
    <message>
        <source>evidence, next step</source>
        <translation>证据与下一步</translation>
    </message>
    <message>
        <source>background</source>
        <translation>背景</translation>
    </message>
</context>
<context>
    <name>Topic</name>
    <message>
        <source>Sorted by relevance · matched keywords: %1</source>
        <translation>按相关度排序 · 命中的关键词：%1</translation>
    </message>
    <message>
        <source>Sorted by relevance</source>
        <translation>相关性排序</translation>
    </message>
    <message>
        <source>Not enough conversation yet — sorted by time</source>
        <translation>对话内容还不足，暂按最新排序</translation>
    </message>
    <message>
        <source>Sorted by modified time</source>
        <translation>按修改时间倒序</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>No Markdown documents in this workspace yet.</source>
        <translation>这个工作区里还没有 Markdown 文档。</translation>
    </message>
    <message>
        <source>Show / Hide</source>
        <translation>显示 / 隐藏</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Knit — recent documents</source>
        <translation>Knit 最近文档</translation>
    </message>
    <message>
        <source>Knit is still running</source>
        <translation>Knit 仍在运行</translation>
    </message>
    <message>
        <source>Closing the window keeps Knit in the tray. Choose Quit in its menu to stop it.</source>
        <translation>关闭窗口后 Knit 仍在托盘中运行。要退出，请在托盘菜单中选择“退出”。</translation>
    </message>
</context>
<context>
    <name>Usage</name>
    <message>
        <source>primary read (%1)</source>
        <translation>主要文档已读（%1）</translation>
    </message>
    <message>
        <source>primary not read yet (%1)</source>
        <translation>主要文档尚未读（%1）</translation>
    </message>
    <message>
        <source>supporting %1/%2</source>
        <translation>辅助文档 %1/%2</translation>
    </message>
    <message>
        <source>%1 read outside the pack (%2 indexed but not in the pack, %3 not indexed)</source>
        <translation>%1 次读取在上下文包之外（%2 个已索引但不在包中，%3 个未索引）</translation>
    </message>
    <message>
        <source>context changed %1×</source>
        <translation>上下文变化 %1 次</translation>
    </message>
    <message>
        <source>Usage since the last pack: %1.</source>
        <translation>自上次上下文包以来的使用情况：%1。</translation>
    </message>
</context>
<context>
    <name>Video</name>
    <message>
        <source>Video needs the system&apos;s sound library libpulse0 (on Debian/Ubuntu: sudo apt install libpulse0); install it and restart Knit Desktop.</source>
        <translation>视频需要系统的声音库 libpulse0（Debian/Ubuntu：sudo apt install libpulse0），安装后请重新启动 Knit Desktop。</translation>
    </message>
    <message>
        <source>Video needs system libraries that are missing (on Debian/Ubuntu: sudo apt install %1); install them and restart Knit Desktop.</source>
        <translation>视频需要的系统库缺失（Debian/Ubuntu：sudo apt install %1），安装后请重新启动 Knit Desktop。</translation>
    </message>
    <message>
        <source>Video cannot play: Qt Multimedia did not load (%1).</source>
        <translation>视频无法播放：Qt Multimedia 未能加载（%1）。</translation>
    </message>
</context>
<context>
    <name>VideoPlayer</name>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放视频</translation>
    </message>
    <message>
        <source>Unmute</source>
        <translation>取消静音</translation>
    </message>
    <message>
        <source>Mute</source>
        <translation>静音</translation>
    </message>
    <message>
        <source>Position</source>
        <translation>播放位置</translation>
    </message>
</context>
<context>
    <name>Why</name>
    <message>
        <source>direct match: %1</source>
        <translation>直接命中：%1</translation>
    </message>
    <message>
        <source>title match: %1</source>
        <translation>标题命中：%1</translation>
    </message>
    <message>
        <source>file name match: %1</source>
        <translation>文件名命中：%1</translation>
    </message>
    <message>
        <source>summary match: %1</source>
        <translation>摘要命中：%1</translation>
    </message>
    <message>
        <source>body match: %1</source>
        <translation>正文命中：%1</translation>
    </message>
    <message>
        <source>body match</source>
        <translation>正文命中</translation>
    </message>
    <message>
        <source>referenced by a primary document</source>
        <translation>被主要上下文引用</translation>
    </message>
    <message>
        <source>references a primary document</source>
        <translation>引用了主要上下文</translation>
    </message>
    <message>
        <source>pinned by you</source>
        <translation>由你固定</translation>
    </message>
    <message>
        <source>related to the current task</source>
        <translation>与当前任务相关</translation>
    </message>
</context>
<context>
    <name>WorkspaceTextBrowser</name>
    <message>
        <source>remote images are not loaded</source>
        <translation>不加载远程图片</translation>
    </message>
    <message>
        <source>the image is outside the workspace</source>
        <translation>图片位于工作区之外</translation>
    </message>
    <message>
        <source>Image not shown: %1</source>
        <translation>未显示图片：%1</translation>
    </message>
</context>
</TS>
