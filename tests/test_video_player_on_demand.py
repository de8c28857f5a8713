"""The window loads Qt Multimedia (and QtNetwork with it: 5.8 MB resident) only once a video needs it: a window
that lists and previews documents never does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

WINDOW = """
import sys, tempfile
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from knit_desktop.core.dsh.conversation import Message
from knit_desktop.ui.app import KnitApp
from knit_desktop.ui.settings import Settings

app = QApplication([])
home = tempfile.mkdtemp()
knit = KnitApp(workspace=sys.argv[1], dsh_home=home + "/dsh", messages=[Message("user", "retry backoff")],
               settings=Settings(home + "/settings.ini"), persistent=False)
knit.window.show()
shown = []
knit.ranking.rankingChanged.connect(lambda _result: shown.append(1) or QTimer.singleShot(300, app.quit))
QTimer.singleShot(20_000, app.quit)
app.exec()
knit.window.preview.show_document(sys.argv[1], "notes.md", "md")
app.processEvents()
print(bool(shown), "PySide6.QtMultimedia" in sys.modules, "PySide6.QtNetwork" in sys.modules)
player = knit.window.preview.video_player  # the first video shown asks for it
print(player is not None, "PySide6.QtMultimedia" in sys.modules)
knit.close()
"""


def test_a_window_showing_documents_never_loads_qt_multimedia(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Upload\n\nretry with backoff\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "KNIT_DESKTOP_HOME": str(tmp_path / "home"),
           "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", WINDOW, str(workspace)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.strip().splitlines()[-2:]
    assert before == "True False False"  # ranked and shown, previewed a document: no Qt Multimedia
    assert after in ("True True", "False True")  # asked for by a video: loaded (or found missing)
