<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>AllView</name>
    <message numerus="yes">
        <source>%1 / %n items</source>
        <translation>
            <numerusform>%1 / %n item</numerusform>
            <numerusform>%1 / %n items</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n items</source>
        <translation>
            <numerusform>%n item</numerusform>
            <numerusform>%n items</numerusform>
        </translation>
    </message>
    <message>
        <source>Docs %1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>View all →</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Images &amp; video %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing in this workspace yet.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DocumentList</name>
    <message>
        <source>(no summary)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click to preview here · double-click to open in a larger window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>new</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DocumentListModel</name>
    <message numerus="yes">
        <source>%1 / %n docs</source>
        <translation>
            <numerusform>%1 / %n doc</numerusform>
            <numerusform>%1 / %n docs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n docs</source>
        <translation>
            <numerusform>%n doc</numerusform>
            <numerusform>%n docs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FolderDrop</name>
    <message>
        <source>Use this folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Make %1 the workspace?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pinned, Knit opens this folder every time (change it in Settings); otherwise only until you quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pin as the workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only for now</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HeaderBar</name>
    <message>
        <source>No workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Demo conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation from %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started with a fixed conversation; DSH sessions are not followed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the active session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No DSH session found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Relevant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sort by relevance to the current conversation (local keyword matching, no model call)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing to rank by yet: listed by time until the conversation (or a topic) has words to match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank over</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Library folders rank beside the workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No library folder yet: add one in Settings → Library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rank over the workspace, the library folders, or both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sort by file modified time, newest first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Docs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Images &amp; video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Switch which artifacts are listed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter title / summary / path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filter documents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What are you working on? (replaces the conversation while set)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Topic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open in file manager</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>More</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always on top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dock to the left edge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dock to the right edge</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation history…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HiddenFooter</name>
    <message>
        <source>Hidden (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Documents you hid; choose one to show it again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show %1 again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show all hidden documents</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>HistoryPanel</name>
    <message>
        <source>Type what you remember: a few words, a fragment, even with a typo.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The history index is not ready yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot search this scope: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(untitled)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no folder)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exact words</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>fuzzy match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turns %1–%2 · %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>You</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 moment(s) in %2 conversation(s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing found. Try other words, or a wider scope.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>That conversation is no longer on disk.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(compacted)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quote copied.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 messages from %2 conversations indexed, compacted ones included.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 damaged part(s) of the logs were skipped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit — conversation history</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What was said? A few words, a fragment, even with a typo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search past conversations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All conversations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy quote</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show earlier turns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show later turns</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a result to read the conversation around it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ItemActions</name>
    <message>
        <source>No app is registered to open %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open with system app</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show in folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy relative path</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy as Markdown link</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unpin</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pin to the top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide from the list</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>LibraryFolders</name>
    <message>
        <source>(missing)</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n folder(s) answer beside the workspace (knit_ask, knit_search, `knit-desktop ask`).</source>
        <translation>
            <numerusform>%n folder answers beside the workspace (knit_ask, knit_search, `knit-desktop ask`).</numerusform>
            <numerusform>%n folders answer beside the workspace (knit_ask, knit_search, `knit-desktop ask`).</numerusform>
        </translation>
    </message>
    <message>
        <source>No library folders yet: add the folders that hold your papers, manuals or specs.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not added: %1 is not a folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not added: %1 is in the library already.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not added: %1 is the root of the file system, your home folder or a system folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not added: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a library folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Scanning the workspace…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No workspace yet — start a DSH session, or choose a folder in Settings.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No documents match “%1”.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No images or videos in this workspace yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No Markdown documents in this workspace yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit — recent documents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit — documents by relevance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent documents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Images and videos</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MediaGrid</name>
    <message>
        <source>Cannot show it: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>image</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MediaGridModel</name>
    <message numerus="yes">
        <source>%1 / %n media</source>
        <translation>
            <numerusform>%1 / %n media</numerusform>
            <numerusform>%1 / %n media</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n media</source>
        <translation>
            <numerusform>%n media</numerusform>
            <numerusform>%n media</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MemoryPanel</name>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n entry</numerusform>
            <numerusform>%n entries</numerusform>
        </translation>
    </message>
    <message>
        <source>Created: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Left alone (already there): %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search libraries and chapters</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Library / chapter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File / lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tags</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>🗂 No memory files yet in %1. Start from a template, or put Markdown files there yourself.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Three to start
(preferences, projects, environment)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All eight
(+ software, network, commands, cleanup, fixes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Three in English
(Preferences, Projects, Environment)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NewcomerPanel</name>
    <message>
        <source>Choose the project folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No workspace yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit keeps a project folder&apos;s documents ranked by what your conversation with the agent is about. Choose the folder, or look around the demo first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose folder…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With DSH: start a session in your project folder and Knit follows it. To give the agent the same ranking, add the row that %1 prints to DSH&apos;s cordis.patch.yml.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PreviewPane</name>
    <message>
        <source>Loading…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no workspace is open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot show this document: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it links outside the workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No preview for this kind of file yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(large file — showing the first 512 KB)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Page %1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Referenced by %1 · links to %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Referenced by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Links to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not referenced by anything · links to no other document</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy citation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy the path and the matched lines (or page) to the clipboard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open locally</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open this document in your default app</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exit fullscreen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fullscreen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exit fullscreen (Esc)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read fullscreen</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close preview</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Back to the document you followed a link from (Alt+←)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forward again (Alt+→)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open in file manager</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous page</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next page</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Problem</name>
    <message>
        <source>the file is gone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it leads outside the workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a readable image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too large to make a thumbnail of (%1 pixels)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no picture could be read from this video in time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not a playable video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the video has no picture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>encrypted PDF (a password is required)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it cannot be read</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>binary content in a text file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too large to read (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refused: a part inflates beyond the limits (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refused: more than %1 parts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refused: the %1 declares XML entities, which can expand without bound</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>encrypted %1 (a password is required)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no text in this %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no text layer — a scanned %1?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no text: a comic book archive holds only images</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RecallStrip</name>
    <message>
        <source>From earlier conversations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hide</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RelativeTime</name>
    <message>
        <source>just now</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n min ago</source>
        <translation>
            <numerusform>%n min ago</numerusform>
            <numerusform>%n min ago</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n h ago</source>
        <translation>
            <numerusform>%n h ago</numerusform>
            <numerusform>%n h ago</numerusform>
        </translation>
    </message>
    <message>
        <source>yesterday</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n d ago</source>
        <translation>
            <numerusform>%n d ago</numerusform>
            <numerusform>%n d ago</numerusform>
        </translation>
    </message>
    <message>
        <source>%1/%2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Choose the workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use this folder as the workspace?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is the root of the file system, your home folder or a system folder. Knit would read every document in it, which can take long and include files that are not a project&apos;s. Use it anyway?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>DSH home</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the DSH session&apos;s folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always this folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default: $DSH_HOME or ~/.dsh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the window on top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the tray icon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show usage (what the session read of the last pack)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default: &lt;DSH home&gt;/memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sticky notes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Capsule</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rounded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Square</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Circle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Follow the theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sea blue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mist purple</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moss green</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Amber</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rose</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Small</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Medium</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Large</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reset position</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <source>Indexing %1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Watching by polling (the system refused more folder watches)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Indexing was cancelled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not open the workspace: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Something went wrong in the background: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StickyNote</name>
    <message>
        <source>No memory files yet: create one to write into.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Environment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fact</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To do</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>📌 Worth remembering?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remember</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write it to</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The memory (you can edit it)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Tiers</name>
    <message>
        <source>Pinned</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Primary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Supporting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Related</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other documents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>kept on top by you</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>read first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>evidence, next step</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>background</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Topic</name>
    <message>
        <source>Sorted by relevance · matched keywords: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sorted by relevance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not enough conversation yet — sorted by time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sorted by modified time</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>No Markdown documents in this workspace yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show / Hide</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit — recent documents</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Knit is still running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Closing the window keeps Knit in the tray. Choose Quit in its menu to stop it.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Usage</name>
    <message>
        <source>primary read (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>primary not read yet (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>supporting %1/%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 read outside the pack (%2 indexed but not in the pack, %3 not indexed)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>context changed %1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Usage since the last pack: %1.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Video</name>
    <message>
        <source>Video needs the system&apos;s sound library libpulse0 (on Debian/Ubuntu: sudo apt install libpulse0); install it and restart Knit Desktop.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video needs system libraries that are missing (on Debian/Ubuntu: sudo apt install %1); install them and restart Knit Desktop.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video cannot play: Qt Multimedia did not load (%1).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>VideoPlayer</name>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unmute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mute</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Position</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Why</name>
    <message>
        <source>direct match: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>title match: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file name match: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>summary match: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body match: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>body match</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>referenced by a primary document</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>references a primary document</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pinned by you</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>related to the current task</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WorkspaceTextBrowser</name>
    <message>
        <source>remote images are not loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the image is outside the workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Image not shown: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
