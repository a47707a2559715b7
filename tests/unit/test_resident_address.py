"""Where the resident engine listens (engine/resident/address.py): one socket per memory
(its name and where it lives), in a folder only its user can open."""
from __future__ import annotations

import os
import stat

from engine.resident import address as resident_address
from engine.wiring.memories import SHARED, Memory
from engine.wiring.settings import Settings


def test_each_memory_has_a_socket_of_its_own(tmp_path):
    settings = Settings.of({"EEM_SERVE_DIR": str(tmp_path / "s")})
    one = Memory("one", home="/data/one")
    two = Memory("two", home="/data/two")
    elsewhere = Memory("one", kind=SHARED, uri="neo4j+s://team.example", database="one")
    paths = {resident_address.socket_path(settings, m) for m in (one, two, elsewhere)}
    assert len(paths) == 3
    assert all(p.startswith(str(tmp_path / "s" / "engine-")) for p in paths)
    assert resident_address.socket_path(settings, one) == resident_address.socket_path(
        settings, Memory("one", home="/data/one"))


def test_the_socket_folder_is_the_users_alone(tmp_path):
    settings = Settings.of({"EEM_HOME": str(tmp_path / "home")})
    folder = resident_address.serve_folder(settings)
    assert folder == str(tmp_path / "home" / "resident")
    assert resident_address.private_folder(folder) is None
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    os.chmod(folder, 0o755)  # opened by someone: closed again before a socket goes in
    assert resident_address.private_folder(folder) is None
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
