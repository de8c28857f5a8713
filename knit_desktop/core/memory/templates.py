"""Starter templates for an empty memory directory (the seed's three, all eight, or three in English).

Three by default: a beginner opening a wall of empty files has too much to take in; the other five stay one
click away. An existing file of the same name is never overwritten; the answer says what was created and what
was left alone.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

_ZH = {
    "01-偏好.md": ("偏好", "偏好, 习惯", [("沟通方式", "回答, 语言"), ("工具和模型", "工具, 模型")]),
    "02-项目.md": ("项目", "项目", [("进行中", "项目, 进行中"), ("已完成", "项目, 已完成")]),
    "03-环境.md": ("环境", "环境, 机器", [("机器和系统", "系统, 硬件"), ("路径和账号", "路径, 账号")]),
    "04-软件.md": ("软件", "软件, 工具", [("常用软件", "软件"), ("配置", "配置")]),
    "05-网络.md": ("网络", "网络", [("代理和镜像", "代理, 镜像"), ("域名和端口", "域名, 端口")]),
    "06-命令.md": ("命令", "命令, 脚本", [("常用命令", "命令"), ("脚本", "脚本")]),
    "07-清理.md": ("清理", "清理, 磁盘", [("可以删的", "清理"), ("不能删的", "保留")]),
    "08-排障.md": ("排障", "排障, 问题", [("遇到过的问题", "问题, 报错"), ("解决办法", "解决")]),
}
_EN = {
    "preferences.md": ("Preferences", "preferences, habits", [("Communication", "answers, language"),
                                                              ("Tools and models", "tools, models")]),
    "projects.md": ("Projects", "projects", [("In progress", "project, in progress"), ("Done", "project, done")]),
    "environment.md": ("Environment", "environment, machine", [("Machines and systems", "system, hardware"),
                                                               ("Paths and accounts", "paths, accounts")]),
}
SETS = {
    "three": ["01-偏好.md", "02-项目.md", "03-环境.md"],
    "eight": list(_ZH),
    "english": list(_EN),
}


def template_text(name: str) -> str:
    title, tags, chapters = (_ZH | _EN)[name]
    word = "tags" if name in _EN else "标签"
    lines = [f"# {title}", f"<!-- {word}: {tags} -->", ""]
    for chapter, chapter_tags in chapters:
        lines += [f"## {chapter}", f"<!-- {word}: {chapter_tags} -->", ""]
    return "\n".join(lines)


@dataclass
class TemplateResult:
    created: list[str] = field(default_factory=list)
    left_alone: list[str] = field(default_factory=list)


def create_templates(memory_dir: str, which: str) -> TemplateResult:
    result = TemplateResult()
    os.makedirs(memory_dir, exist_ok=True)
    for name in SETS[which]:
        path = os.path.join(memory_dir, name)
        try:
            with open(path, "x", encoding="utf-8") as fh:  # "x": fails if the file exists, so nothing is overwritten
                fh.write(template_text(name))
        except FileExistsError:
            result.left_alone.append(name)
            continue
        result.created.append(name)
    return result
