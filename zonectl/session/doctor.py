"""`zonectl doctor` on an open connection: the facts read (zonectl/mongo/doctor_read.py), the
checks made of them (zonectl/doctor/), and with `probe` the round trip that changes the
cluster briefly (zonectl/mongo/probe.py), cleaned up under any signal. Prints nothing."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from zonectl.doctor.facts import Check, DoctorFacts
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection


@dataclass(frozen=True)
class DoctorRequest:
    database: str  # zonectl's own
    desired: DesiredState | None = None  # check what the policy names exists as it says
    probe: bool = False
    round_wait_s: float = 0.0  # how long the probe waits for a balancer round to end
    teach_rate: bool = False  # the probe migrates scratch chunks for config.changelog


@dataclass(frozen=True)
class DoctorResult:
    facts: DoctorFacts
    checks: list[Check]


def run_doctor(conn: Connection, request: DoctorRequest) -> DoctorResult:
    from zonectl.doctor.checks import make_checks
    from zonectl.mongo.doctor_read import read_doctor_facts

    desired = request.desired
    namespaces = (
        {ns for ns in desired.collections if "*" not in ns and "?" not in ns} if desired else None
    )
    facts = read_doctor_facts(conn, database=request.database, namespaces=namespaces)
    checks = make_checks(facts, desired, dt.datetime.now(dt.UTC))
    if request.probe and facts.config_error is None:
        checks.extend(_run_probe(conn, request))
    return DoctorResult(facts, checks)


def _run_probe(conn: Connection, request: DoctorRequest) -> list[Check]:
    """SIGINT/SIGTERM unwind through the probe's cleanup, which runs with them deferred."""
    from zonectl.apply.interrupt import check_stop
    from zonectl.apply.safeguards import SIGNALS, signals_as_interrupts
    from zonectl.mongo.probe import run_probe

    with signals_as_interrupts():
        return run_probe(
            conn,
            request.database,
            now=dt.datetime.now(dt.UTC),
            round_wait_s=request.round_wait_s,
            shield=SIGNALS.deferred,
            checkpoint=check_stop,  # a fleet run's Ctrl-C (signals reach the main thread only)
            teach=request.teach_rate,
        )
