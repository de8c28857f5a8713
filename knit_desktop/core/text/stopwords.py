"""Stop lists of the reference engine (knit-engine.md §2.2), as data."""

EN_STOP = frozenset(
    ["the", "and", "for", "are", "but", "not", "you", "all", "can", "her", "was", "one", "our", "out", "day", "get", "has", "him", "his", "how", "its", "new", "now", "old", "see", "two", "way", "who", "boy", "did", "use", "that", "this", "with", "have", "from", "they", "will", "would", "there", "their", "what", "about", "which", "when", "make", "like", "time", "just", "know", "take", "into", "your", "some", "them", "than", "then", "only", "come", "over", "also", "back", "after", "first", "well", "even", "want", "because", "these", "give", "most", "been", "were", "does", "here", "more", "very", "should", "could", "need", "using", "used", "each", "such", "same", "other", "being", "both", "any", "may", "own", "com", "www", "http", "https", "html", "json", "node", "true", "false", "null", "undefined", "var", "let", "const", "function", "return", "import", "export", "default", "async", "await"]
)

# A CJK gram made only of these characters is dropped.
CN_STOP_CHARS = frozenset(
    ["的", "了", "是", "在", "我", "你", "他", "她", "它", "们", "这", "那", "有", "和", "与", "就", "都", "也", "不", "没", "很", "会", "能", "要", "把", "被", "让", "给", "从", "到", "对", "为", "以", "及", "或", "但", "而", "之", "其", "于", "并", "等", "着", "过", "个", "上", "下", "中", "里", "外", "前", "后", "时", "话", "说", "做", "用", "好", "多", "少", "大", "小", "来", "去", "出", "入", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "呢", "吗", "吧", "啊", "哦", "嗯", "呀", "么", "些", "嘛", "啦"]
)

CN_STOP_BIGRAMS = frozenset(
    ["我们", "你们", "他们", "她们", "这个", "那个", "这些", "那些", "什么", "怎么", "可以", "需要", "一个", "就是", "不是", "没有", "已经", "还是", "因为", "所以", "但是", "如果", "这样", "那样", "现在", "时候", "一下", "一直", "而且", "或者", "以及", "不过", "然后", "比较", "非常", "真的", "应该", "可能", "只是", "其实", "这里", "那里", "自己", "大家", "一些", "有点", "以后", "以前", "之后", "之前", "的话", "来说", "方面"]
)

# Cross-word fragments: a CJK candidate starting or ending with one of these is dropped. Deliberately narrower
# than CN_STOP_CHARS (对 starts real words such as 对比, 对话, 对象). The reference's list also held 出 入 时 话 会 用
# 能, which begin or end everyday words (输出, 进入, 时间, 会话, 对话, 用户, 功能); Knit leaves them out, because
# the index-aware choice and IDF now deal with the fragments they made (README, "How the ranking works").
REFERENCE_ONLY_EDGE = frozenset(["出", "入", "时", "话", "会", "用", "能"])
CN_EDGE_STOP = frozenset(
    ["的", "了", "是", "在", "和", "与", "就", "都", "也", "很", "把", "被", "让", "给", "从", "到", "为", "以", "及", "或", "但", "而", "之", "于", "并", "等", "着", "过", "呢", "吗", "吧", "啊", "哦", "嗯", "呀", "么", "些", "嘛", "啦", "我", "你", "他", "她", "它", "们", "这", "那", "有", "没", "会", "能", "要", "不", "说", "做", "用", "好", "多", "少", "来", "去", "出", "入", "时", "话", "个"]
)

CN_EDGE_STOP = CN_EDGE_STOP - REFERENCE_ONLY_EDGE

# Acknowledgements that never make a message the task line.
TASK_ACK = frozenset(
    ["继续", "好的", "好", "嗯", "嗯嗯", "收到", "谢谢", "可以", "行", "对", "是的", "没问题", "辛苦了", "麻烦了", "ok", "okay", "yes", "yep", "y", "thanks", "thx", "gotit", "continue", "goon", "next", "done"]
)
