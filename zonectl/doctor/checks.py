"""The checks: DoctorFacts (and, given one, the desired state) in, one Check per line out.
Pure: `now` is only used to tell an expired lease from a live one."""

from __future__ import annotations

import datetime as dt
import fnmatch
from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.doctor.facts import Check, DoctorFacts, Status
from zonectl.doctor.key_change import key_change_check
from zonectl.doctor.privileges import COMMANDS, find_missing
from zonectl.forecast.learn import MIN_SAMPLES
from zonectl.forecast.timing import ASSUMED_FIXED_S
from zonectl.forecast.units import DEFAULT_COPY_RATE, format_rate
from zonectl.model.cluster import ClusterState, LiveCollection
from zonectl.model.desired import DesiredState
from zonectl.plan.settings_view import setting_lines

# The lease is taken and judged with each host's own clock (apply/safeguards.py): a host
# more than the renewal slack (a third of the 5 min TTL) ahead would take a live lease.
# Stay well below that; a few seconds is what NTP-synced hosts keep.
SKEW_WARN_S = 2.0
SKEW_FAIL_S = 30.0


def make_checks(facts: DoctorFacts, desired: DesiredState | None, now: dt.datetime) -> list[Check]:
    checks = [
        Check("mongos", Status.OK, f"{facts.uri} is a mongos"),
        _version(facts),
        *_privileges(facts, desired),
        _clock(facts),
    ]
    if facts.config_error is not None:
        fix = "grant find on config.shards, tags, collections, chunks, settings, migrations"
        detail = f"cannot read the config metadata: {facts.config_error}"
        return [*checks, Check("config", Status.FAIL, detail, fix)]
    checks += [
        _balancer(facts),
        _migrations(facts),
        _draining(facts, desired),
        _jumbo(facts),
        _lease(facts, now),
        _journal(facts),
        _history(facts),
    ]
    if desired is not None:
        checks.extend(_policy(facts, desired))
    return checks


def exit_status(checks: Sequence[Check], *, strict: bool) -> bool:
    """True when the report passes: no fail, and no warning under --strict."""
    bad = {Status.FAIL, Status.WARN} if strict else {Status.FAIL}
    return not any(c.status in bad for c in checks)


def _version_tuple(version: str) -> tuple[int, int]:
    parts = [*(int(p) if p.isdigit() else 0 for p in version.split(".")[:2]), 0, 0]
    return parts[0], parts[1]


def _patch(version: str) -> int:
    parts = version.split(".")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else 0


def _version(facts: DoctorFacts) -> Check:
    v = _version_tuple(facts.version)
    uses = [
        "moveRange" if v >= (6, 0) else "moveChunk",
        "balancing by data size" if v >= (6, 0) else "balancing by chunk count",
        "$shardedDataDistribution"
        if v > (6, 0) or (v == (6, 0) and _patch(facts.version) >= 3)
        else "no $shardedDataDistribution (shard bytes not shown)",
    ]
    fcv = f", FCV {facts.fcv}" if facts.fcv else ", FCV unknown (admin.system.version unread)"
    detail = f"MongoDB {facts.version}{fcv}; zonectl will use {', '.join(uses)}"
    if v < (4, 4):
        return Check(
            "version", Status.FAIL, detail, "zonectl needs MongoDB 4.4 or later (5.0-8.0 tested)"
        )
    if v < (5, 0) or v >= (8, 1):
        return Check("version", Status.WARN, detail, "zonectl is tested against 5.0 to 8.0")
    if facts.fcv and facts.fcv != f"{v[0]}.{v[1]}":
        return Check(
            "version",
            Status.WARN,
            detail,
            f"the feature compatibility version lags the binary: features of {v[0]}.{v[1]} "
            "stay off until setFeatureCompatibilityVersion",
        )
    return Check("version", Status.OK, detail)


def _privileges(facts: DoctorFacts, desired: DesiredState | None) -> list[Check]:
    if not facts.users and facts.config_error is not None:
        return [
            Check(
                "privileges",
                Status.FAIL,
                "no user authenticated, and the cluster requires one",
                "put the user and password in the URI (and authSource if not admin)",
            )
        ]
    if not facts.users:
        detail = "no user authenticated and the config reads succeeded: access control is off"
        return [Check("privileges", Status.OK, detail)]
    namespaces = sorted(ns for ns in (desired.collections if desired else {}) if "*" not in ns)
    who = ", ".join(facts.users)
    out: list[Check] = []
    for command, needs in COMMANDS.items():
        missing = find_missing(
            facts.privileges, needs, database=facts.database, namespaces=namespaces
        )
        name = f"privileges:{command}"
        hard = [m for m in missing if not m.need.optional]
        if not missing:
            out.append(Check(name, Status.OK, f"{who} may run zonectl {command}"))
            continue
        lines = "; ".join(
            f"{m.need.what}: " + ", ".join(f"{a} on {_show(r)}" for r, a in m.lacking)
            for m in missing
        )
        fix = "grant a role with these actions (clusterManager covers zonectl's config writes)"
        status = Status.FAIL if hard else Status.WARN
        out.append(Check(name, status, f"{who} lacks {lines}", fix))
    return out


def _show(resource: str) -> str:
    return "the cluster" if resource == "cluster" else resource


def _clock(facts: DoctorFacts) -> Check:
    c = facts.clock
    mid = c.host_before + (c.host_after - c.host_before) / 2
    skew = (c.cluster - mid).total_seconds()
    # hello's localTime has millisecond precision; the round trip bounds when it was taken.
    error = (c.host_after - c.host_before).total_seconds() / 2 + 0.001
    sure = max(abs(skew) - error, 0.0)
    side = "ahead of" if skew > 0 else "behind"
    detail = f"cluster clock {abs(skew):.3f} s {side} this host (±{error:.3f} s)"
    fix = "sync this host and the cluster with NTP: the lease and the windows use both clocks"
    if sure >= SKEW_FAIL_S:
        return Check("clock", Status.FAIL, detail + f"; limit {SKEW_FAIL_S:g} s", fix)
    if sure >= SKEW_WARN_S:
        return Check("clock", Status.WARN, detail + f"; warning above {SKEW_WARN_S:g} s", fix)
    return Check("clock", Status.OK, detail)


def _balancer(facts: DoctorFacts) -> Check:
    state = "running" if facts.balancer_mode == "full" else f"mode {facts.balancer_mode}"
    w = facts.balancer_window
    window = f", active window {w.get('start')}-{w.get('stop')}" if w else ", no active window"
    if facts.in_round is None:
        return Check(
            "balancer",
            Status.WARN,
            f"{state}{window}; balancerStatus refused, round state unknown",
            "grant find on config.settings (balancerStatus)",
        )
    round_ = "; in a balancer round now" if facts.in_round else ""
    return Check("balancer", Status.OK, f"{state}{window}{round_}")


def _migrations(facts: DoctorFacts) -> Check:
    if not facts.migrations:
        return Check("migrations", Status.OK, "no migration in flight")
    return Check(
        "migrations",
        Status.WARN,
        f"{facts.migrations} migration(s) in flight (config.migrations)",
        "apply waits for those of the namespaces it changes; run it when they are done",
    )


def _draining(facts: DoctorFacts, desired: DesiredState | None) -> Check:
    draining = sorted(s for s, d in facts.shards.items() if d)
    if not draining:
        return Check("draining", Status.OK, f"{len(facts.shards)} shard(s), none draining")
    removing = sorted(set(draining) & desired.removed_shards) if desired else []
    if removing == draining:  # the policy's own drains (`state: removed`): apply goes on
        detail = f"draining: {', '.join(draining)}, which the policy removes"
        return Check("draining", Status.OK, detail)
    # a draining shard the policy still gives zones to can take no chunk of them
    named = sorted(s for s in draining if desired.shards.get(s)) if desired else []
    fix = "finish removeShard first" if not named else "drop draining shards from the policy"
    status = Status.FAIL if named else Status.WARN
    extra = f"; the policy gives zones to {', '.join(named)}" if named else ""
    return Check("draining", status, f"draining: {', '.join(draining)}{extra}", fix)


def _jumbo(facts: DoctorFacts) -> Check:
    jumbo = {ns: n for ns, n in sorted(facts.jumbo.items()) if n}
    if not jumbo:
        detail = f"no jumbo chunk in the {len(facts.jumbo)} zoned or managed namespace(s)"
        return Check("jumbo", Status.OK, detail)
    listed = ", ".join(f"{ns} {n}" for ns, n in jumbo.items())
    return Check(
        "jumbo",
        Status.WARN,
        f"jumbo chunks: {listed}",
        "the balancer cannot move them; apply --migrate needs --force-jumbo, or split them",
    )


def _lease(facts: DoctorFacts, now: dt.datetime) -> Check:
    lease = facts.lease
    if facts.own_error is not None:
        return Check(
            "lease",
            Status.WARN,
            f"cannot read the lease and journal: {facts.own_error}",
            f"grant find on the {facts.database} database",
        )
    if lease is None:
        return Check("lease", Status.OK, f"no lease held in {facts.database}.locks")
    if lease.expires is not None and lease.expires <= now:
        return Check(
            "lease",
            Status.WARN,
            f"an expired lease of {lease.holder}",
            "the next apply takes it over; 'zonectl recover' cleans up what the run left",
        )
    if lease.dead:
        return Check(
            "lease",
            Status.WARN,
            f"the lease of a run that is gone: {lease.holder} (no such process on this host)",
            "the next apply, rotate or recover takes it over; 'zonectl recover' restores "
            "what the run paused",
        )
    return Check(
        "lease",
        Status.FAIL,
        f"lease held by {lease.holder}",
        "another zonectl run is changing this cluster: wait, or 'zonectl recover "
        "--break-lease' once you checked it is dead",
    )


def _journal(facts: DoctorFacts) -> Check:
    if not facts.open_journals:
        return Check("journal", Status.OK, "no unfinished apply")
    return Check(
        "journal",
        Status.WARN,
        f"{facts.open_journals} unfinished apply journal(s)",
        "run 'zonectl recover' to restore balancing and close them",
    )


def _policy(facts: DoctorFacts, desired: DesiredState) -> list[Check]:
    out: list[Check] = []
    # a shard the policy adds (`host:`) or has removed (`state: removed`) may be absent
    specs = desired.shard_specs
    expected = {s for s, spec in specs.items() if spec.host or spec.state == "removed"}
    unknown = sorted(set(desired.shards) - set(facts.shards) - expected)
    if unknown:
        where = "; ".join(
            f"{s} ({desired.shard_positions[s]})" if s in desired.shard_positions else s
            for s in unknown
        )
        out.append(
            Check(
                "policy:shards",
                Status.FAIL,
                f"unknown shard(s): {where}; the cluster has {', '.join(sorted(facts.shards))}",
                "fix the shard names in the policy",
            )
        )
    else:
        present = [s for s in desired.shards if s in facts.shards]
        added = sorted(s for s in expected - set(facts.shards) if specs[s].host)
        gone = sorted(s for s in expected - set(facts.shards) if specs[s].state == "removed")
        detail = (
            f"{len(present)} shard(s) exist"
            + (f"; to add (host given): {', '.join(added)}" if added else "")
            + (f"; removed, as the policy says: {', '.join(gone)}" if gone else "")
        )
        out.append(Check("policy:shards", Status.OK, detail))
    out.extend(_settings(facts, desired))
    for ns, cp in sorted(desired.collections.items()):
        live = facts.sharded.get(ns)
        changes = (
            cp.key is not None and live is not None and list(cp.key.items()) != list(live.items())
        )
        if live is not None and (changes or cp.migrate == "reshard"):
            key = cp.key if cp.key is not None and changes else live
            at = str(cp.position) if cp.position else None
            out.append(key_change_check(ns, key, live, facts, route=not changes, where=at))
            continue
        out.append(_namespace(ns, cp.key, str(cp.position) if cp.position else None, facts))
    return out


def _namespace(
    ns: str, key: Mapping[str, Any] | None, where: str | None, facts: DoctorFacts
) -> Check:
    name = f"policy:{ns}"
    at = f" ({where})" if where else ""
    if "*" in ns or "?" in ns:
        matched = [n for n in facts.sharded if fnmatch.fnmatchcase(n, ns)]
        if not matched:
            return Check(name, Status.WARN, f"pattern matches no sharded namespace{at}")
        return Check(name, Status.OK, f"pattern matches {len(matched)} sharded namespace(s)")
    live = facts.sharded.get(ns)
    if live is None:
        return Check(
            name,
            Status.WARN,
            f"not a sharded collection{at}",
            "shard it first, or expect its ranges to wait for shardCollection",
        )
    if key is not None and list(key.items()) != list(live.items()):
        return Check(
            name,
            Status.FAIL,
            f"the policy says key {_key(key)}{at}, the cluster has {_key(live)}",
            "write the live shard key in the policy",
        )
    return Check(name, Status.OK, f"sharded on {_key(live)}")


def _key(key: Mapping[str, Any]) -> str:
    fields = (f'{k}: "{v}"' if isinstance(v, str) else f"{k}: {v}" for k, v in key.items())
    return "{" + ", ".join(fields) + "}"


def _history(facts: DoctorFacts) -> Check:
    """Whether forecasts run on the cluster's own speed (docs/migration.md): learned from
    config.changelog, or assumed, and how to teach them."""
    h = facts.history
    assumed = f"forecasts assume {ASSUMED_FIXED_S:.1f} s + {format_rate(DEFAULT_COPY_RATE)}"
    assumed += " per migration"
    if h is None:
        return Check("history", Status.OK, f"migration history not read; {assumed}")
    if h.error:
        fix = "grant find on config.changelog (the clusterMonitor role has it)"
        return Check("history", Status.WARN, f"{h.error}; {assumed}", fix)
    if h.model is None:
        detail = (
            f"{h.samples} usable {_migration_word(h.samples)} in config.changelog, "
            f"{MIN_SAMPLES} needed: {assumed}; `zonectl doctor --probe --teach-rate` or a "
            "first small `zonectl apply --migrate` teaches them"
        )
        return Check("history", Status.OK, detail)
    m = h.model
    detail = (
        f"forecasts learn from {h.samples} {_migration_word(h.samples)} in config.changelog: "
        f"{m.fixed_s:.1f} s + {format_rate(m.rate)} per migration"
    )
    slower = sorted((r, s) for s, r in m.shard_rates.items() if r < 0.8 * m.rate)
    if slower:
        detail += "; slower shards: " + ", ".join(f"{s} {format_rate(r)}" for r, s in slower)
    if h.ignored:
        detail += f"; {h.ignored_total} entries ignored"
    return Check("history", Status.OK, detail)


def _migration_word(n: int) -> str:
    return "migration" if n == 1 else "migrations"


def _settings(facts: DoctorFacts, desired: DesiredState) -> list[Check]:
    """The balancer settings the policy names: which drift (apply will write them) and
    which this cluster's release does not have (nothing will be written)."""
    actual = ClusterState(
        version=facts.version,
        fcv=facts.fcv,
        settings=facts.settings,
        collections={
            ns: LiveCollection(ns, key, settings=facts.collection_settings.get(ns, {}))
            for ns, key in facts.sharded.items()
        },
    )
    named = [x for x in setting_lines(actual, desired) if x.wanted is not None]
    if not named:
        return []
    gated = [x for x in named if x.state.startswith("needs")]
    drift = [x for x in named if x.drifts]
    if gated:
        detail = "; ".join(f"{x.name} {x.state}" for x in gated)
        fix = "remove them from the policy, or upgrade (binary and FCV)"
        return [Check("policy:settings", Status.WARN, f"not written here: {detail}", fix)]
    if drift:
        detail = "; ".join(f"{x.name} {x.live} -> {x.wanted}" for x in drift)
        return [Check("policy:settings", Status.OK, f"{len(drift)} to change: {detail}")]
    return [Check("policy:settings", Status.OK, f"{len(named)} balancer setting(s) match")]
