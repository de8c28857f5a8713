"""Everything is declared in pyproject.toml; this only puts `resources/` into the wheel as package data.

The folder stays at the top of the source tree (translations, the PyInstaller spec and the tests use it there);
a built package gets a copy as `knit_desktop/_resources`, which `knit_desktop.resources` looks for first. An
editable install reads the source tree's folder instead, so nothing is copied for it.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "knit_desktop" / "_resources"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(ROOT / "resources", target)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "knit_desktop" / "_resources"
            outputs += [str(path) for path in (ROOT / "resources").rglob("*") if path.is_file()
                        for path in [target / path.relative_to(ROOT / "resources")]]
        return outputs


setup(cmdclass={"build_py": BuildWithResources})
