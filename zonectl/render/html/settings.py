"""The status page's balancer settings: each stored setting (and each the policy names) as
the text view lists them, one table row each, drift marked."""

from __future__ import annotations

from zonectl.plan.settings_view import SettingLine
from zonectl.render.html.markup import table


def settings_section(settings: tuple[SettingLine, ...]) -> str:
    """Empty when no setting is stored and the policy names none."""
    if not settings:
        return ""
    rows = [(x.name, x.live, x.wanted if x.wanted is not None else "-", x.state) for x in settings]
    return "<h2>Balancer settings</h2>\n" + table(
        ("setting", "stored", "the policy says", "state"), rows, label="settings"
    )
