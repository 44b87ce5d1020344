"""Daemon configuration: defaults, the optional TOML file, and command-line overrides."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .protocol.paths import APP, daemon_socket

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SYSTEM_CONFIG = Path("/etc/gpu-node-supervisor/supervisor.toml")
SYSTEM_PROFILES = Path("/etc/gpu-node-supervisor/profiles")
SYSTEM_STATE = Path("/var/lib/gpu-node-supervisor")


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    profiles_dir: Path
    state_dir: Path
    socket: Path
    fake_gpus: int | None = None
    allow_uids: tuple[int, ...] = ()        # besides the daemon's own uid and root
    allow_groups: tuple[str, ...] = ()
    on_restart: str = "stop"                 # what to do with a live server found at start
    log_max_mb: int = 256
    keep_runs: int = 200                     # run folders kept on disk
    startup_profile: str | None = None
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"
    # -- the group that may connect to the control socket (mode 0660) -----------------------
    socket_group: str | None = None
    # -- [cluster]: launch groups coordinated through etcd (supervisor/cluster) -------------
    cluster_etcd: tuple[str, ...] = ()       # endpoints; none: no coordination
    cluster_node: str | None = None          # this node's name in [group] nodes (host name)
    cluster_address: str | None = None       # how other ranks reach this node
    cluster_lease_ttl: int = 10              # seconds without this daemon -> its group stops
    cluster_orchestrator: str | None = None  # slurm, lws or auto: the group from its env
    cluster_profile: str | None = None       # the profile an orchestrated rank launches
    extra: dict[str, Any] = field(default_factory=dict)


def is_system() -> bool:
    return os.geteuid() == 0


def _user_defaults() -> tuple[Path, Path, Path, Path]:
    if is_system():
        return SYSTEM_CONFIG, SYSTEM_PROFILES, SYSTEM_STATE, daemon_socket()
    conf = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / APP
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local/state") / APP
    return conf / "supervisor.toml", conf / "profiles", state, daemon_socket()


CLUSTER_KEYS = ("etcd", "node", "address", "lease_ttl", "orchestrator")
ORCHESTRATORS = ("auto", "slurm", "lws")
_KEYS = {"cluster_etcd", "cluster_node", "cluster_address", "cluster_lease_ttl",
         "cluster_orchestrator",
         "profiles_dir", "state_dir", "socket", "fake_gpus", "allow_uids", "allow_groups",
         "on_restart", "log_max_mb", "keep_runs", "startup_profile", "metrics_port",
         "metrics_host", "socket_group"}


def load(config_file: str | None = None, **overrides: Any) -> Config:
    """Defaults < config file < flags. A missing default file is fine; a named one must exist."""
    conf_path, profiles, state, sock = _user_defaults()
    values: dict[str, Any] = {"profiles_dir": profiles, "state_dir": state, "socket": sock}
    path = Path(config_file) if config_file else conf_path
    if config_file and not path.exists():
        raise ConfigError(f"{path}: no such config file")
    if path.exists():
        values.update(_read(path))
    values.update({k: v for k, v in overrides.items() if v is not None})
    for key in ("profiles_dir", "state_dir", "socket"):
        values[key] = Path(values[key]).expanduser()
    cfg = _orchestrated(Config(**values), path)
    if cfg.on_restart not in ("stop", "adopt"):
        raise ConfigError(f"{path}: on_restart must be 'stop' or 'adopt'")
    _check_ops(cfg, path)
    return cfg


def _check_ops(cfg: Config, path: Path) -> None:
    """The metrics endpoint and the socket group."""
    port = cfg.metrics_port
    if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                             or not 1 <= port <= 65535):
        raise ConfigError(f"{path}: metrics_port must be a port number 1-65535")
    if not isinstance(cfg.metrics_host, str) or not cfg.metrics_host:
        raise ConfigError(f"{path}: metrics_host must be a host name or address")
    if cfg.socket_group is not None:
        import grp

        try:
            grp.getgrnam(str(cfg.socket_group))
        except KeyError:
            raise ConfigError(f"{path}: socket_group: no group named "
                              f"{cfg.socket_group!r}") from None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    flat: dict[str, Any] = _read_cluster(path, data.pop("cluster", None))
    for section in ("daemon", "paths", "access", "logs", "metrics"):
        table = data.pop(section, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [{section}] must be a table")
        flat.update(table)
    flat.update(data)
    unknown = set(flat) - _KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key(s): {', '.join(sorted(unknown))}")
    if "allow_uids" in flat:
        flat["allow_uids"] = tuple(int(u) for u in flat["allow_uids"])
    if "allow_groups" in flat:
        flat["allow_groups"] = tuple(str(g) for g in flat["allow_groups"])
    if "socket_group" in flat:
        flat["socket_group"] = str(flat["socket_group"])
    return flat



def _read_cluster(path: Path, table: Any) -> dict[str, Any]:
    """[cluster]: etcd = "http://HOST:PORT" or a list, node, address, lease_ttl."""
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [cluster] must be a table")
    unknown = set(table) - set(CLUSTER_KEYS)
    if unknown:
        raise ConfigError(f"{path}: [cluster]: unknown key(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(CLUSTER_KEYS)})")
    out: dict[str, Any] = {}
    etcd = table.get("etcd")
    urls = [etcd] if isinstance(etcd, str) else etcd
    if etcd is not None:
        if not isinstance(urls, list) or not urls or not all(
                isinstance(u, str) and u.startswith("http://") for u in urls):
            raise ConfigError(f"{path}: [cluster] etcd must be \"http://HOST:PORT\" or a list "
                              f"of them, got {etcd!r}")
        out["cluster_etcd"] = tuple(urls)
    for key in ("node", "address"):
        if key in table:
            value = table[key]
            if not isinstance(value, str) or not value or any(c in value for c in "/ \0+"):
                raise ConfigError(f"{path}: [cluster] {key} must be a name without spaces, "
                                  f"'/' or '+', got {value!r}")
            out[f"cluster_{key}"] = value
    if "lease_ttl" in table:
        ttl = table["lease_ttl"]
        if isinstance(ttl, bool) or not isinstance(ttl, int) or not 2 <= ttl <= 600:
            raise ConfigError(f"{path}: [cluster] lease_ttl must be whole seconds from 2 to "
                              f"600, got {ttl!r}")
        out["cluster_lease_ttl"] = ttl
    if "orchestrator" in table:
        out["cluster_orchestrator"] = table["orchestrator"]
    return out


def _orchestrated(cfg: Config, path: Path) -> Config:
    """With an orchestrator (Slurm, LWS) the group comes from its environment, not etcd, and
    the startup profile is this rank's part (launched by the cluster service with the rank's
    flags, not as is by the arbiter)."""
    kind = cfg.cluster_orchestrator
    if kind is None:
        return cfg
    if kind not in ORCHESTRATORS:
        raise ConfigError(f"{path}: [cluster] orchestrator must be one of "
                          f"{', '.join(ORCHESTRATORS)}, got {kind!r}")
    if cfg.cluster_etcd:
        raise ConfigError(f"{path}: [cluster] has both etcd and orchestrator = {kind!r}; a "
                          "group is coordinated by one of them: drop one")
    if not cfg.startup_profile:
        raise ConfigError(f"{path}: orchestrator = {kind!r} needs the profile this rank "
                          "launches: startup_profile = NAME (or --startup-profile NAME)")
    return replace(cfg, cluster_profile=cfg.startup_profile, startup_profile=None)
