"""rstorch.hub (torch.hub): the cache folder's rules, downloads with hash checks through a
temporary file, load_state_dict_from_url's cache, hubconf entry points from a local folder and
from a GitHub archive (served here from a file:// URL: the tests reach no network), trust checks."""
import hashlib
import os
import zipfile

import pytest

import rstorch
from rstorch import hub


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    return tmp_path


def test_get_dir_follows_torch_home_and_set_dir(hub_dir, monkeypatch):
    assert hub.get_dir() == str(hub_dir / "home" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(hub_dir / "xdg"))
    assert hub.get_dir() == str(hub_dir / "xdg" / "torch" / "hub")
    hub.set_dir(hub_dir / "elsewhere")
    assert hub.get_dir() == str(hub_dir / "elsewhere")
    assert rstorch.hub is hub and rstorch.utils.model_zoo.load_url is hub.load_state_dict_from_url


def test_download_checks_the_hash_and_leaves_no_partial_file(tmp_path):
    src = tmp_path / "weights.bin"
    src.write_bytes(b"0123456789" * 1000)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    dst = tmp_path / "out" / "w.bin"
    dst.parent.mkdir()
    hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:8], progress=False)
    assert dst.read_bytes() == src.read_bytes()
    bad = tmp_path / "out" / "bad.bin"
    with pytest.raises(RuntimeError, match=f'invalid hash value \\(expected "ffff", got "{digest}"\\)'):
        hub.download_url_to_file(src.as_uri(), str(bad), hash_prefix="ffff", progress=False)
    assert sorted(os.listdir(tmp_path / "out")) == ["w.bin"]


def test_load_state_dict_from_url_downloads_once(hub_dir, capsys):
    state = {"w": rstorch.arange(6.0).reshape(2, 3), "b": rstorch.zeros(3)}
    src = hub_dir / "served"
    src.mkdir()
    rstorch.save(state, src / "model.pt")
    digest = hashlib.sha256((src / "model.pt").read_bytes()).hexdigest()
    named = src / f"model-{digest[:10]}.pth"
    os.replace(src / "model.pt", named)
    got = hub.load_state_dict_from_url(named.as_uri(), check_hash=True, progress=False)
    assert sorted(got) == ["b", "w"] and rstorch.equal(got["w"], state["w"])
    assert "Downloading:" in capsys.readouterr().err
    cached = hub_dir / "home" / "hub" / "checkpoints" / named.name
    assert cached.exists()
    named.unlink()  # the second call reads the cache
    again = hub.load_state_dict_from_url(named.as_uri(), file_name=None, progress=False)
    assert rstorch.equal(again["b"], state["b"]) and "Downloading:" not in capsys.readouterr().err
    # A single file inside a plain zip is the legacy format: unpacked, then loaded.
    rstorch.save(state, hub_dir / "inner.pt")
    with zipfile.ZipFile(src / "legacy.zip", "w") as z:
        z.write(hub_dir / "inner.pt", "inner.pt")
    legacy = hub.load_state_dict_from_url((src / "legacy.zip").as_uri(), model_dir=str(hub_dir / "m"), progress=False)
    assert rstorch.equal(legacy["w"], state["w"])


HUBCONF = '''
"""A hub repository."""
dependencies = ["numpy"]
import helper_module


def tiny(width=2, scale=1.0):
    """Builds a tiny model."""
    import rstorch
    m = rstorch.nn.Linear(width, 1)
    m.scale = scale * helper_module.FACTOR
    return m


def _private():
    pass
'''


def _write_repo(folder, extra_dependency=None):
    folder.mkdir(parents=True)
    conf = HUBCONF if extra_dependency is None else HUBCONF.replace('["numpy"]', f'["numpy", "{extra_dependency}"]')
    (folder / "hubconf.py").write_text(conf)
    (folder / "helper_module.py").write_text("FACTOR = 3\n")


def test_load_from_a_local_folder(tmp_path):
    _write_repo(tmp_path / "repo")
    model = hub.load(str(tmp_path / "repo"), "tiny", 4, source="local", scale=2.0)
    assert model.weight.shape == (1, 4) and model.scale == 6.0
    with pytest.raises(RuntimeError, match="Cannot find callable nothing in hubconf"):
        hub.load(str(tmp_path / "repo"), "nothing", source="local")
    with pytest.raises(ValueError, match='Unknown source: "web". Allowed values: "github" | "local".'):
        hub.load(str(tmp_path / "repo"), "tiny", source="web")
    with pytest.raises(ValueError, match="model should be a string of function name"):
        hub.load(str(tmp_path / "repo"), 3, source="local")
    _write_repo(tmp_path / "needy", extra_dependency="no_such_package_xyz")
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_package_xyz"):
        hub.load(str(tmp_path / "needy"), "tiny", source="local")


def test_github_repository_is_downloaded_trusted_and_cached(hub_dir, tmp_path, monkeypatch, capsys):
    _write_repo(tmp_path / "src" / "someone-tiny-abc123")
    archive = tmp_path / "archive.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in ("hubconf.py", "helper_module.py"):
            z.write(tmp_path / "src" / "someone-tiny-abc123" / f, f"someone-tiny-abc123/{f}")
    asked = []
    monkeypatch.setattr(hub, "_archive_url", lambda owner, name, ref: archive.as_uri())
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "n")
    with pytest.raises(Exception, match="Untrusted repository."):
        hub.load("someone/tiny:v1", "tiny", skip_validation=True)
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "y")
    assert hub.list("someone/tiny:v1", skip_validation=True) == ["tiny"]
    assert len(asked) == 2 and "someone_tiny does not belong to the list of trusted repositories" in asked[0]
    trusted = (hub_dir / "home" / "hub" / "trusted_list").read_text().split()
    assert trusted == ["someone_tiny"]
    assert (hub_dir / "home" / "hub" / "someone_tiny_v1" / "hubconf.py").exists()
    model = hub.load("someone/tiny:v1", "tiny", skip_validation=True)  # trusted now, from the cache
    assert model.scale == 3.0 and len(asked) == 2
    assert "Using cache found in" in capsys.readouterr().err
    assert hub.help("someone/tiny:v1", "tiny", skip_validation=True).strip() == "Builds a tiny model."


def test_archives_cannot_write_outside_the_hub_folder(hub_dir, tmp_path, monkeypatch):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("repo/hubconf.py", "")
        z.writestr("../../escaped.py", "x = 1")
    monkeypatch.setattr(hub, "_archive_url", lambda owner, name, ref: archive.as_uri())
    with pytest.raises(ValueError, match="outside of the extraction folder"):
        hub.load("pytorch/evil:main", "x", skip_validation=True)
    assert not (hub_dir / "escaped.py").exists() and not (hub_dir / "home" / "escaped.py").exists()
