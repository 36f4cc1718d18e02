"""docs/balancer-settings.md, generated from the settings table: each key, what it does, the
release that has it, where MongoDB stores it, how zonectl writes it, and an example.
`ZONECTL_REGEN_DOCS=1 pytest tests/balancer_settings` rewrites the page; a test keeps it current."""

from __future__ import annotations

import json
from typing import Any

from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import CLUSTER, COLLECTION

INTRO = """\
# Balancer settings

<!-- Generated from zonectl/balancer_settings/table.py: edit the table, then run
     `ZONECTL_REGEN_DOCS=1 pytest tests/balancer_settings`. -->

Beside zones, a policy manages the balancer's own settings: the chunk size, how migrations
wait for replication and deletes, jumbo handling, the auto-merger, day-of-week windows, and
per collection the chunk size, the auto-merger and a one-time defragmentation. They are
planned and applied like zones:

* **Absent means unmanaged.** A key the policy leaves out is never written; `plan` and
  `status` list what the cluster stores for it under "unmanaged".
* **Written exactly as MongoDB stores them**: `config.settings` documents upserted through
  mongos for the cluster, `configureCollectionBalancing` for a collection. A second `apply`
  plans nothing. `zonectl export` writes the stored ones back into a policy.
* **Version gates.** A key the cluster's release (binary and feature compatibility version)
  does not have gets a warning from `plan` and `apply` (on stderr, and in the JSON plan's
  `warnings`) at the policy's `file:line`, naming the release it needs; it is no change, so
  nothing is written for it and `--detailed-exitcode` does not count it. `status` shows it
  as "needs MongoDB X+".
  zonectl never writes `{_id: "autosplit"}` (7.0+ refuses it) nor a field the 7.0+
  `config.settings` validator refuses; if the server refuses one anyway (code 121), apply
  stops, names the setting and restores what it paused, without retrying.
* **Order.** On 7.0+ `balancerStart`/`balancerStop` also switch `automerge.enabled`, so
  `autoMerger` is written after the balancer switch, and written back after every pause
  `apply` makes: `enabled: true` with `autoMerger: false` ends with the auto-merger off.
* Bad values are policy errors at `file:line:col` (exit 3): a chunk size outside 1-1024 or
  not an integer, `secondaryThrottle: "yes"`, a day-of-week window with an unknown day, a
  time that is not `HH:MM`, or the same start and stop.
* **Where they show.** `plan` (and the pull-request comment) lists each change as
  `~ key before -> after`; `status` lists every stored setting, and with a policy whether
  it is managed, drifts or waits for a release; the metric `zonectl_balancer_setting_drift`
  and `doctor`'s `policy:settings` line say the same. The forecast cuts each balancer
  migration at the chunk size the plan leaves (since 6.0.3 a balancer `moveRange` without
  `max` moves about one chunk size), balances only inside the day-of-week windows where
  MongoDB uses them, gives a collection being defragmented no balancer finish, and says
  what it assumes of `secondaryThrottle` and `waitForDelete`. Each key below lists how the
  forecast, `status`, the metrics and `zonectl twin` read it.

The balancer's `enabled`, `activeWindow` and `timezone`, and a collection's `balancing`, are
described in [policy.md](policy.md). MongoDB's behaviour, version by version, is in
`shared/reference/balancer-settings.md` (the section numbers below are its).
"""


def _example(scope: str, setting: Setting) -> str:
    value = json.dumps(setting.example).replace('"', "")
    if isinstance(setting.example, list):
        value = json.dumps(setting.example)
    if scope == "cluster":
        return f"balancer:\n  {setting.key}: {value}"
    return f"collections:\n  app.events:\n    {setting.key}: {value}"


def _how(setting: Setting) -> str:
    database, command = setting.command("app.events", setting.example)
    if setting.scope == "collection":
        return f"`configureCollectionBalancing` with `{setting.command_field}`"
    update: Any = command["updates"][0]["u"]
    where = f'`{{_id: "{setting.doc}"}}`'
    return (
        f"`update` of `{database}.settings` {where} through mongos, upsert, `{json.dumps(update)}`"
    )


def _section(scope: str, setting: Setting) -> list[str]:
    absent = (
        "MongoDB's default"
        if setting.absent is None
        else f"the same as `{json.dumps(setting.absent)}`"
    )
    lines = [
        f"### `{setting.key}`",
        "",
        setting.summary,
        "",
        f"* Release: {setting.since_text}",
        f"* Stored in: {setting.stored_text}",
        f"* Written with: {_how(setting)}",
        f"* When nothing is stored: {absent}",
    ]
    if setting.notes:
        lines.append(f"* {setting.notes}")
    lines.append("* Read by:")
    lines += [f"  * {reader}: {text}" for reader, text in setting.readers.items()]
    lines += ["", "```yaml", _example(scope, setting), "```", ""]
    return lines


def render_page() -> str:
    out = [INTRO, "## Cluster: the `balancer:` section", ""]
    for setting in CLUSTER:
        out += _section("cluster", setting)
    out += ["## A collection: under `collections:`", ""]
    for setting in COLLECTION:
        out += _section("collection", setting)
    return "\n".join(out).rstrip() + "\n"
