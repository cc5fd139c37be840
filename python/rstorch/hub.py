"""`torch.hub`: models published as a `hubconf.py` in a GitHub repository or a local folder, and
weights downloaded once into a cache (`load_state_dict_from_url`).

The cache is PyTorch's: `$TORCH_HOME/hub` (`$XDG_CACHE_HOME/torch/hub`, `~/.cache/torch/hub`) unless
`set_dir` says otherwise, so files PyTorch downloaded are found here too. A repository's code runs
on this machine: as PyTorch does, it must be trusted first (`trust_repo`, the `trusted_list` file
of the hub folder). Downloaded weights load with `rstorch.load` and its `weights_only` rules."""
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
# Repositories of these owners are trusted without asking, as in PyTorch.
_TRUSTED_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")

_hub_dir = None


def get_dir():
    """The hub cache folder: the one `set_dir` gave, else `$TORCH_HOME/hub`."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_torch_home(), "hub")


def set_dir(d):
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _torch_home():
    cache = os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR)
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(cache, "torch")))


# ----- downloads -----------------------------------------------------------------------------

def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads `url` to `dst` through a temporary file beside it, so that `dst` never holds a
    partial download; with `hash_prefix`, the file's SHA-256 must start with it (RuntimeError)."""
    request = Request(url, headers={"User-Agent": "torch.hub"})
    with urlopen(request) as response:  # noqa: S310 - fetching the URL the caller gave is the point
        length = response.info().get("Content-Length") if hasattr(response, "info") else None
        total = int(length) if length is not None and str(length).isdigit() else None
        dst = os.path.expanduser(dst)
        folder = os.path.dirname(os.path.abspath(dst))
        partial = os.path.join(folder, f"{os.path.basename(dst)}.{uuid.uuid4().hex}.partial")
        sha256 = hashlib.sha256() if hash_prefix is not None else None
        try:
            with open(partial, "wb") as out, _progress_bar(total, progress) as bar:
                while True:
                    chunk = response.read(READ_DATA_CHUNK)
                    if not chunk:
                        break
                    out.write(chunk)
                    if sha256 is not None:
                        sha256.update(chunk)
                    bar.update(len(chunk))
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
            shutil.move(partial, dst)
        finally:
            if os.path.exists(partial):
                os.remove(partial)


def _progress_bar(total, shown):
    from tqdm import tqdm

    return tqdm(total=total, disable=not shown, unit="B", unit_scale=True, unit_divisor=1024)


def _is_legacy_zip(path):
    # Weights once shipped zipped: one file alone in a plain zip (PyTorch's own format holds several).
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:
        members = z.infolist()
        return len(members) == 1 and not members[0].is_dir()


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The object saved at `url`, downloaded once into `<hub dir>/checkpoints` (or `model_dir`).
    With `check_hash`, the file name's `-<hex>.` part must prefix the file's SHA-256."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    if _is_legacy_zip(cached):
        with zipfile.ZipFile(cached) as z:
            member = z.infolist()[0]
            z.extract(member, model_dir)
            cached = os.path.join(model_dir, member.filename)
    from . import serialization

    return serialization.load(cached, map_location=map_location, weights_only=weights_only)


# ----- repositories ----------------------------------------------------------------------------

def _parse_repo(github):
    """'owner/name[:ref]' -> (owner, name, ref); the ref defaults to `main`, else `master`."""
    if ":" in github:
        owner_name, ref = github.split(":", 1)
    else:
        owner_name, ref = github, None
    if owner_name.count("/") != 1:
        raise ValueError(f'Invalid input: repo_or_dir should be of the form "owner/name[:ref]", got {github}')
    owner, name = owner_name.split("/")
    if ref is None:
        try:
            with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):  # noqa: S310
                ref = "main"
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = "master"
        except URLError as e:
            # Offline: a cached copy of either branch will do.
            for candidate in ("main", "master"):
                if os.path.exists(os.path.join(get_dir(), f"{owner}_{name}_{candidate}")):
                    ref = candidate
                    break
            else:
                raise e
    return owner, name, ref


def _archive_url(owner, name, ref):
    return f"https://github.com/{owner}/{name}/zipball/{ref}"


def _github_json(url):
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    with urlopen(Request(url, headers=headers)) as r:  # noqa: S310
        return json.loads(r.read().decode(r.headers.get_content_charset("utf-8")))


def _check_not_a_fork(owner, name, ref):
    """The ref must be a branch or tag of the repository itself, not a commit of some fork (GitHub
    serves those under any repository's name)."""
    base = f"https://api.github.com/repos/{owner}/{name}"
    for kind in ("branches", "tags"):
        page = 0
        while True:
            page += 1
            found = _github_json(f"{base}/{kind}?per_page=100&page={page}")
            if not found:
                break
            if any(item["name"] == ref or item["commit"]["sha"].startswith(ref) for item in found):
                return
    raise ValueError(f"Cannot find {ref} in https://github.com/{owner}/{name}. If it's a commit from a forked repo, "
                     "please call hub.load() with forked repo directly.")


def _check_trusted(owner, name, owner_name_ref, trust_repo):
    hub_dir = get_dir()
    trusted_file = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(trusted_file):
        open(trusted_file, "a").close()
    with open(trusted_file) as f:
        trusted = tuple(line.strip() for line in f)
    owner_name = f"{owner}_{name}"
    # A repository already in the cache (from before the trusted list existed) counts as trusted.
    cached = next(os.walk(hub_dir))[1]
    is_trusted = owner_name in trusted or owner_name_ref in cached or owner in _TRUSTED_OWNERS
    if trust_repo is None and not is_trusted:
        warnings.warn("You are about to download and run code from an untrusted repository. In a future release, "
                      "this won't be allowed. To add the repository to your trusted list, change the command to "
                      "{calling_fn}(..., trust_repo=False) and a command prompt will appear asking for an explicit "
                      "confirmation of trust, or load(..., trust_repo=True), which will assume that the prompt is to "
                      "be answered with 'yes'. You can also use load(..., trust_repo='check') which will only prompt "
                      "for confirmation if the repo is not already trusted. This will eventually be the default "
                      "behaviour", stacklevel=3)
        return
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        answer = input(f"The repository {owner_name} does not belong to the list of trusted repositories and as such "
                       "cannot be downloaded. Do you trust this repository and wish to add it to the trusted list of "
                       "repositories (y/N)?")
        if answer.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif answer.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - PyTorch's exception
        else:
            raise ValueError(f"Unrecognized response {answer}.")
    if not is_trusted:
        with open(trusted_file, "a") as f:
            f.write(owner_name + "\n")


def _cached_repo(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    """The folder holding the repository's code at its ref, downloaded and unpacked on first use."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo(github)
    normalized_ref = ref.replace("/", "_")
    owner_name_ref = f"{owner}_{name}_{normalized_ref}"
    repo_dir = os.path.join(hub_dir, owner_name_ref)
    _check_trusted(owner, name, owner_name_ref, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _check_not_a_fork(owner, name, ref)
    archive = os.path.join(hub_dir, normalized_ref + ".zip")
    if os.path.exists(archive):
        os.remove(archive)
    url = _archive_url(owner, name, ref)
    sys.stdout.write(f'Downloading: "{url}" to {archive}\n')
    download_url_to_file(url, archive, progress=False)
    with zipfile.ZipFile(archive) as z:
        # GitHub's archives hold one folder, `<owner>-<name>-<sha>/`.
        top = z.infolist()[0].filename.split("/")[0]
        unpacked = os.path.join(hub_dir, top)
        shutil.rmtree(unpacked, ignore_errors=True)
        root = os.path.realpath(hub_dir)
        for member in z.infolist():
            # No member may land outside the hub folder (`../` or absolute names).
            target = os.path.realpath(os.path.join(hub_dir, member.filename))
            if os.path.commonpath([root, target]) != root:
                raise ValueError(f"The zip archive contains a file outside of the extraction folder: {member.filename}")
        z.extractall(hub_dir)
    os.remove(archive)
    shutil.rmtree(repo_dir, ignore_errors=True)
    shutil.move(unpacked, repo_dir)
    return repo_dir


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF[:-3], path)
    module = importlib.util.module_from_spec(spec)
    # The hubconf imports its own repository's modules.
    sys.path.insert(0, repo_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    return module


def _entry(hubconf, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [p for p in getattr(hubconf, VAR_DEPENDENCY, None) or [] if importlib.util.find_spec(p) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(hubconf, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """The entry points (public callables) of the repository's hubconf.py."""
    repo_dir = _cached_repo(github, force_reload, trust_repo, verbose, skip_validation)
    hubconf = _import_hubconf(repo_dir)
    return [f for f in dir(hubconf) if callable(getattr(hubconf, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """The docstring of the entry point `model`."""
    repo_dir = _cached_repo(github, force_reload, trust_repo, True, skip_validation)
    return _entry(_import_hubconf(repo_dir), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Calls the entry point `model` of the hubconf.py of a GitHub repository ('owner/name[:ref]')
    or, with `source='local'`, of a folder, with `*args` and `**kwargs`."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = _cached_repo(repo_or_dir, force_reload, trust_repo, verbose, skip_validation)
    return _entry(_import_hubconf(repo_or_dir), model)(*args, **kwargs)
