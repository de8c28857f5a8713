"""`gui`, `mcp` and `selftest`: the commands that start something long-lived (the window, the MCP server)."""

from __future__ import annotations

import argparse
import os
import sys

from ..core.index.boundary import WorkspaceNotFound
from ..demo import prepare_demo_workspace
from ..resources import demo_conversation
from .common import (
    check_workspace_arg,
    read_messages,
)
from .parser import EXIT_OK, UsageError


def opened_folder(path: str) -> str:
    """The workspace for a path passed to the window: a folder itself, a file's folder."""
    if os.path.isdir(path) or not os.path.exists(path):
        return path  # a missing path is reported as a missing workspace
    return os.path.dirname(os.path.abspath(path))


def cmd_gui(args: argparse.Namespace) -> int:
    if args.path:
        if args.workspace:
            raise UsageError("give the folder either as --workspace or as the argument, not both")
        args.workspace = opened_folder(args.path)
    if args.workspace and os.path.isdir(args.workspace):
        check_workspace_arg(args.workspace, args)  # before Qt loads: a refusal is one line, no window
    from ..ui import app  # Qt widgets load only for the window

    messages = None
    if args.messages:
        messages = read_messages(args.messages)
    workspace = args.workspace
    if args.demo:
        workspace = workspace or str(prepare_demo_workspace())
        if messages is None:
            messages = read_messages(str(demo_conversation()))
    if workspace and not os.path.isdir(workspace):
        raise WorkspaceNotFound(workspace)
    name = "demo" if args.demo and not args.messages else (args.messages or "")
    return app.run(workspace=workspace, dsh_home=args.dsh_home, messages=messages, screenshot=args.screenshot,
                   persistent=not args.demo, conversation_name=name)


def cmd_selftest(args: argparse.Namespace) -> int:
    from ..selftest import main as selftest_main  # Qt loads only here

    return selftest_main()


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..mcp_sdk import skip_package_inits

    skip_package_inits()  # this process only serves: the SDK's client and high-level server are never loaded
    from .. import mcp_server  # the SDK is only imported by the command that needs it

    workspace = os.path.realpath(args.workspace) if args.workspace else None
    if workspace is not None and not os.path.isdir(workspace):
        raise WorkspaceNotFound(args.workspace)
    if workspace is not None:
        check_workspace_arg(workspace, args)
    if args.print_config:
        sys.stdout.write(mcp_server.print_config(args.print_config, workspace, args.dsh_home))
        return EXIT_OK
    return mcp_server.serve(workspace, args.dsh_home, args.memory_dir, args.allow_large_workspace)
