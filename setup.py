"""The build's one addition to pyproject.toml: compile the translation catalogues.

Each ``p2p10/locale/<lang>/LC_MESSAGES/p2p10.po`` becomes the ``p2p10.mo`` that the program
reads (``p2p10.i18n``), with Babel (a build requirement): into the wheel for ``pip install .``, in
place in the working tree for ``pip install -e .`` (the ``.mo`` files are git-ignored).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CATALOGUES = "p2p10/locale/*/LC_MESSAGES/*.po"


class BuildPyWithCatalogues(build_py):
    """build_py, then every ``.po`` compiled to the ``.mo`` beside it."""

    def run(self) -> None:
        super().run()  # in an editable build it copies nothing
        target = HERE if self.editable_mode else Path(self.build_lib)
        for po in sorted(HERE.glob(CATALOGUES)):
            mo = (target / po.relative_to(HERE)).with_suffix(".mo")
            compile_catalogue(po, mo)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        if not self.editable_mode:
            outputs += [str((Path(self.build_lib) / po.relative_to(HERE)).with_suffix(".mo"))
                        for po in sorted(HERE.glob(CATALOGUES))]
        return outputs


def compile_catalogue(po: Path, mo: Path) -> None:
    """Compile ``po`` to ``mo`` (fuzzy translations left out, as gettext's msgfmt does)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as source:
        catalog = read_po(source)
    mo.parent.mkdir(parents=True, exist_ok=True)
    with mo.open("wb") as out:
        write_mo(out, catalog)


setup(cmdclass={"build_py": BuildPyWithCatalogues})
