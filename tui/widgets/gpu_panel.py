"""GPUs: a row each (utilisation with its history sparkline, memory, temperature, power) and a
second row with health flags and throttle reasons when there are any."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from .. import formatting as fmt


class GpuPanel(Static):
    DEFAULT_CSS = """
    GpuPanel {
        height: auto;
        max-height: 10;
        padding: 0 1;
        border: round $primary-darken-2;
        border-title-color: $text-muted;
    }
    GpuPanel.-alert { border: round $warning; }
    """

    gpus: reactive[list[Any]] = reactive(list, layout=True)

    def on_mount(self) -> None:
        self.border_title = "GPUs"

    def watch_gpus(self, gpus: list[Any]) -> None:
        alert = any(fmt.as_dict(fmt.as_dict(g).get("health")).get("level")
                    not in (None, "ok") for g in fmt.as_list(gpus))
        self.set_class(alert, "-alert")
        self.border_title = f"GPUs ({len(fmt.as_list(gpus))})"

    def render(self) -> Group:
        gpus = fmt.as_list(self.gpus)
        if not gpus:
            return Group(Text("no GPU data", "dim"))
        longest = max((len(fmt.as_list(fmt.as_dict(fmt.as_dict(g).get("history"))
                                         .get("util"))) for g in gpus), default=0)
        width = max(4, min(40, self.size.width - 38, longest or 4))
        rows: list[Text] = []
        for gpu in gpus:
            rows.append(fmt.gpu_line(gpu, width))
            detail = fmt.gpu_detail(gpu)
            if detail is not None:
                rows.append(detail)
        return Group(*rows)
