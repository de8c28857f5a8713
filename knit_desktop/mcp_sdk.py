"""The MCP SDK's stdio server without the rest of the SDK, for the `mcp` command's process.

Importing `mcp.server.lowlevel` first runs `mcp/__init__.py` and `mcp/server/__init__.py`, which import the SDK's
client and its high-level server (`MCPServer`, whose request-state encryption loads `cryptography`, and its HTTP
transports) only to re-export their names. The server runs on the low-level server and the stdio transport and
uses none of that: it was 12 MB of the process's resident memory (63 MB after its imports, 51 MB without).

`skip_package_inits` registers those two packages as they are found on disk but without running their
`__init__`, so every module below them still loads from the SDK itself, as it is. It is done only in the process
that serves (never in one that imports the SDK's client too), and undone if the SDK's layout ever stops
allowing it: the server then imports the SDK as usual.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

PACKAGES = ("mcp", "mcp.server")
SERVER_MODULES = ("mcp.server.lowlevel", "mcp.server.stdio")


def skip_package_inits() -> bool:
    """Import the server's parts of the SDK without its package `__init__`s; False (and nothing changed) when the
    SDK is already imported or cannot be imported that way."""
    if any(name in sys.modules for name in PACKAGES):
        return False
    try:
        for name in PACKAGES:
            spec = importlib.util.find_spec(name)
            if spec is None or spec.submodule_search_locations is None:
                raise ImportError(f"{name} is not a package")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)
        for name in SERVER_MODULES:
            importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure: forget the partial import, the usual one follows
        for name in [n for n in sys.modules if n in PACKAGES or n.startswith("mcp.")]:
            del sys.modules[name]
        return False
    return True
