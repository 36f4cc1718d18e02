"""The Op base class: what every op kind declares about itself (its sign, summary bucket,
apply phase, the line the views print, the note a reviewer reads, the zone layout it
changes), so no view, summary, planner rule or executor checks an op's type. Every kind is
registered by its `kind` when its class is defined. Plus the wording helpers its lines share."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from zonectl.model.byte_size import format_bytes as format_bytes
from zonectl.model.keys import format_value

Reply = Literal["command", "write", "matched"]
Sign = Literal["+", "-", "~"]
# The summary bucket an op is counted in (plan/plan.py Summary).
Counts = Literal[
    "range_added",
    "range_removed",
    "membership",
    "setting",
    "collection_moved",
    "primary_moved",
    "key_change",
    "shard",
    "",
]
# The stage of `zonectl apply` that runs it, in this order (planner docstring, rules 1-5):
# memberships joined, key changes, range ops (per namespace, inside the pause), collections
# moved, memberships left, everything else, then shards drained and removed.
Phase = Literal["join", "key", "range", "relocate", "leave", "last", "shards"]
# What its impact estimate measures: chunks migrating (and their bytes), bytes copied.
Moves = Literal["migrates", "copies", ""]
# Formats a name or value from the cluster (a code span), and free text (escaped).
Format = Callable[[str], str]

# Every attribute an op class must declare itself (tests/plan/test_op_classes.py); `kind`,
# `counts_as` and `phase` have no default.
DECLARED = ("kind", "sign", "counts_as", "phase", "moves", "destructive", "apply_only")

# mongosh's sh.startBalancer/stopBalancer and sh.disableBalancing use these (reference §3.1, §3.5).
BALANCER_MAX_TIME_MS = 60_000
MAJORITY = {"w": "majority", "wtimeout": 60_000}


@dataclass(frozen=True)
class Impact:
    """Estimated data movement a range op causes: chunks (and bytes) that will migrate."""

    chunks: int = 0  # chunks overlapping the range
    migrating: int = 0  # of those, chunks on a shard outside the range's zone
    bytes: int = 0  # estimated bytes of the migrating chunks


def format_range(lo: Mapping[str, Any], hi: Mapping[str, Any]) -> str:
    return f"[{format_value(lo)}, {format_value(hi)})"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def on_off(value: bool | None) -> str:
    return "unknown" if value is None else "on" if value else "off"


@dataclass(frozen=True)
class RangeChange:
    """A zone range of one namespace an op assigns (`adds`) or removes: what rotate's checks,
    the impact reads, apply's preview and verification and the layout after a plan read."""

    ns: str
    zone: str
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    adds: bool


@dataclass(frozen=True)
class MembershipChange:
    """A shard joining (`joins`) or leaving a zone."""

    shard: str
    zone: str
    joins: bool


@dataclass(frozen=True)
class KeyChange:
    """A new shard key for one collection; `reshards`: the collection is rewritten (every
    document copied, for hours; apply follows it to its end, apply/reshard/)."""

    ns: str
    key: Mapping[str, Any]
    previous: Mapping[str, Any]
    reshards: bool

    @property
    def same_key(self) -> bool:
        """A reshard route: the key stays, only the placement changes."""
        return list(self.key.items()) == list(self.previous.items())


@dataclass(frozen=True)
class Relocation:
    """An unsharded collection moved whole to a shard of its pinned zone."""

    ns: str
    from_shard: str
    to_shard: str
    zone: str


# Every op kind by its `kind`, filled as each class is defined (plan/kinds.py imports the
# family modules; saved plans load through it).
KINDS: dict[str, type[Op]] = {}


@dataclass(frozen=True)
class Op:
    """Base of every op. A kind declares its class attributes as class keywords, only where
    they differ from the defaults below: `class X(Op, kind="x", counts_as="setting",
    phase="last")`. `kind` is the stable name used in saved plans and JSON output; `kind`,
    `counts_as` and `phase` have no default, so a new op kind that forgets one fails the
    completeness test rather than being counted or ordered by accident."""

    kind: ClassVar[str]
    sign: ClassVar[Sign] = "~"  # `+` adds, `-` removes, `~` changes (text and markdown diff)
    counts_as: ClassVar[Counts]  # its summary bucket; "" for none
    phase: ClassVar[Phase]
    moves: ClassVar[Moves] = ""
    destructive: ClassVar[bool] = False  # removes something the cluster had (JSON)
    apply_only: ClassVar[bool] = False  # a `zonectl rotate` run never sends it (plan/restrict.py)
    database: ClassVar[str] = "admin"
    # Sending its command twice leaves the cluster as sending it once, and the second send
    # answers ok: apply sends it again after a connection reset (apply/resend.py) instead
    # of ending the run. False unless MongoDB's behaviour says so (reference, per kind).
    idempotent: ClassVar[bool] = False

    def __init_subclass__(
        cls,
        *,
        kind: str | None = None,
        sign: Sign | None = None,
        counts_as: Counts | None = None,
        phase: Phase | None = None,
        moves: Moves | None = None,
        destructive: bool | None = None,
        apply_only: bool | None = None,
        database: str | None = None,
        idempotent: bool | None = None,
    ) -> None:
        super().__init_subclass__()
        declared = {
            "sign": sign,
            "counts_as": counts_as,
            "phase": phase,
            "moves": moves,
            "destructive": destructive,
            "apply_only": apply_only,
            "database": database,
            "idempotent": idempotent,
        }
        for name, value in declared.items():
            if value is not None:
                setattr(cls, name, value)
        if kind is not None:
            if kind in KINDS:
                raise TypeError(f"op kind {kind!r} is declared twice: {KINDS[kind].__qualname__}")
            cls.kind = kind
            KINDS[kind] = cls

    @property
    def namespace(self) -> str | None:
        return None

    @property
    def impact(self) -> Impact | None:
        """The estimate of what it moves (ops with an `impact` field); None otherwise."""
        return None

    @property
    def placed_in(self) -> str | None:
        """The zone this op puts (part of) its namespace's data in: a range assigned to it, a
        collection moved to a shard of it; None for ops that place nothing."""
        return None

    @property
    def blocked(self) -> str:
        """Why it cannot run yet (key changes); "" when it can."""
        return ""

    def range_change(self) -> RangeChange | None:
        """The zone range it assigns or removes; None for ops that change no range."""
        return None

    def membership_change(self) -> MembershipChange | None:
        """The shard it adds to or removes from a zone; None for other ops."""
        return None

    def key_change(self) -> KeyChange | None:
        """The shard key it gives its collection; None for other ops."""
        return None

    def relocation(self) -> Relocation | None:
        """The unsharded collection it moves to another shard; None for other ops."""
        return None

    def ranges_after(self) -> tuple[RangeChange, ...] | None:
        """Its namespace's zone ranges once it has run, when it replaces them all (a
        resharding to the same key); None when it leaves them to the range ops."""
        return None

    def balancing_after(self) -> bool | None:
        """Whether its namespace is balanced once it has run; None when it does not switch
        balancing."""
        return None

    def describe(self) -> str:
        raise NotImplementedError

    def line(self) -> str:
        """Its line in the text and markdown diff (after its sign), in the operator's words."""
        raise NotImplementedError

    def details(self) -> tuple[str, ...]:
        """Lines under its line in the text and markdown diff (indented by the view): what a
        shard's removal moves and what blocks it; () for most ops."""
        return ()

    def callout(self, code: Format, prose: Format) -> str:
        """Why a reviewer should look at it (the PR view's warning list); "" when nothing
        to call out. `code` formats cluster names and values, `prose` free text."""
        return ""

    def command(self) -> dict[str, Any]:
        raise NotImplementedError

    def inverse(self) -> Op | None:
        """The op that undoes this one, for rollback notes; None when there is none."""
        return None

    def setting_change(self) -> tuple[str | None, str, Any] | None:
        """(namespace or None for the cluster, policy key, new value) of a balancer setting
        this op writes (plan/setting_ops.py); None for other ops."""
        return None

    @property
    def reply(self) -> Reply:
        """How the executor reads the server's answer: "command" (ok or an error), "write"
        (an `update` answers ok with writeErrors inside), "matched" (a write that must
        match a document: config.collections of a collection that may have gone)."""
        return "command"

    def memo(self) -> dict[str, Any] | None:
        """A record zonectl keeps in its own database once this op has succeeded (a one-shot
        setting it must not start again); None for most ops."""
        return None
