"""gpu-node-supervisor: supervises LLM inference servers on a GPU host.

The import package is named ``supervisor`` like supervisord's. ``IDENTITY`` lets
every entry point check that *this* package was imported, not supervisord's.
"""

from __future__ import annotations

__version__ = "0.1.0"
IDENTITY = "gpu-node-supervisor"


class ShadowedPackageError(RuntimeError):
    """Another package named ``supervisor`` (supervisord's) shadows ours."""


def check_identity() -> None:
    """Fail with a clear message if ``import supervisor`` found someone else's package."""
    import supervisor as imported

    if getattr(imported, "IDENTITY", None) != IDENTITY:
        where = getattr(imported, "__file__", "?")
        raise ShadowedPackageError(
            f"'import supervisor' found {where}, which is not gpu-node-supervisor "
            "(supervisord's package has the same name). Uninstall supervisord from this "
            "environment or run gpu-node-supervisor from its own virtualenv."
        )
