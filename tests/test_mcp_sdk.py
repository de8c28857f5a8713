"""The `mcp` command's process loads the SDK's stdio server without the SDK's client and high-level server, whose
package `__init__`s it skips (12 MB of the server's resident memory); an SDK it cannot load that way is imported
as usual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

WORKTREE = str(Path(__file__).resolve().parent.parent)
UNUSED = ("mcp.client", "mcp.server.mcpserver", "cryptography", "httpx2")


def modules_after(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": WORKTREE}
    out = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\nprint(json.dumps(result))"],
                         capture_output=True, text=True, timeout=120, env=env, cwd=WORKTREE)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def test_the_server_process_loads_the_stdio_server_and_none_of_the_client_or_high_level_server():
    result = modules_after(
        "from knit_desktop.mcp_sdk import skip_package_inits\n"
        "skipped = skip_package_inits()\n"
        "from knit_desktop import mcp_server\n"
        "import sys\n"
        "server = mcp_server.build_server(None)\n"
        "result = {'skipped': skipped, 'server': type(server).__module__,\n"
        "          'loaded': sorted(m for m in sys.modules if m.startswith(" + repr(UNUSED) + "))}\n"
    )
    assert result == {"skipped": True, "server": "mcp.server.lowlevel.server", "loaded": []}


def test_an_sdk_already_imported_is_left_as_it_is():
    result = modules_after(
        "import mcp\n"
        "from knit_desktop.mcp_sdk import skip_package_inits\n"
        "result = {'skipped': skip_package_inits(), 'client': hasattr(mcp, 'ClientSession')}\n"
    )
    assert result == {"skipped": False, "client": True}


def test_an_sdk_that_cannot_be_loaded_that_way_is_imported_as_usual():
    result = modules_after(
        "from knit_desktop import mcp_sdk\n"
        "mcp_sdk.SERVER_MODULES = ('mcp.server.no_such_module',)\n"
        "skipped = mcp_sdk.skip_package_inits()\n"
        "import sys\n"
        "left = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.'))\n"
        "import mcp\n"
        "result = {'skipped': skipped, 'left': left, 'client': hasattr(mcp, 'ClientSession')}\n"
    )
    assert result == {"skipped": False, "left": [], "client": True}
