"""What `pip install .` installs: every Python file of the package is listed in meson.build's
py.install_sources (an unlisted one is missing from an installed or editable cupynum, while an
in-place build still finds it)."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_package_file_is_installed():
    with open(os.path.join(ROOT, "meson.build")) as f:
        build = f.read()
    missing = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "cupynum")):
        for name in files:
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(dirpath, name), ROOT).replace(os.sep, "/")
                if f"'{rel}'" not in build:
                    missing.append(rel)
    assert missing == [], f"not in meson.build's py.install_sources: {missing}"
