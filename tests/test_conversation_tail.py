"""The ranker's view of a growing conversation: only the new messages arrive, only the window is kept."""

from __future__ import annotations

import random

from knit_desktop.core.dsh.conversation import MAX_MESSAGES, ConversationTail, Message, conversation_window


def test_the_tail_reads_exactly_like_the_whole_conversation_however_it_arrives():
    rng = random.Random(7)
    words = ["cache", "eviction", "ok", "thanks", "sync", "vector clocks", "   ", "继续", "x" * 2500, "yes"]
    for _ in range(200):
        history: list[Message] = []
        tail = ConversationTail()
        for _ in range(rng.randint(1, 8)):  # appends of a few messages each, as the follower hands them over
            batch = [Message(rng.choice(["user", "assistant", "tool"]), " ".join(rng.choices(words, k=rng.randint(1, 4))),
                             synthetic=rng.random() < 0.15) for _ in range(rng.randint(0, 5))]
            history.extend(batch)
            tail.extend(batch)
            assert conversation_window(tail.messages) == conversation_window(history)
        assert len(tail.messages) <= MAX_MESSAGES


def test_extend_says_whether_the_window_can_have_changed():
    tail = ConversationTail([Message("user", "how does the cache evict?")])
    assert not tail.extend([Message("user", "AGENTS.md text", synthetic=True), Message("assistant", "  ")])
    assert tail.extend([Message("assistant", "by age")])


def test_a_change_of_subject_ends_the_window_there():
    from knit_desktop.core.dsh.conversation import Message, changes_topic, conversation_window

    older = [Message("user", "Harbor thumbnails: which sizes do we render?"),
             Message("assistant", "Workers render 256, 512 and 1024 px thumbnails as WebP.")]
    switch = Message("user", "OK. Different question: when an upload fails, how long until it retries?")
    assert conversation_window([*older, switch]).texts == [switch.text]
    reply = Message("assistant", "Exponential backoff from 2 seconds.")
    assert conversation_window([*older, switch, reply]).texts == [reply.text, switch.text]
    assert changes_topic("换个话题，相册分享的链接多久过期？")
    # Said further in, it is part of the question, not a change of subject.
    late = Message("user", "Looking at the thumbnail workers again, is WebP quality a different question from size?")
    assert len(conversation_window([*older, late]).texts) == 3
    assert not changes_topic("The new questionnaire")
