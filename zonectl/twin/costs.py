"""The twin's cost model: what the forecast learns from config.changelog (fixed seconds,
the copy rate, per shard and per donor/recipient pair), written with where it came from."""

from __future__ import annotations

from typing import Any

from zonectl.forecast.learn import Learned


def section(learned: Learned | None, missing: str = "") -> dict[str, Any]:
    """The `twin.costs` section; `missing` says why no history could be read."""
    if learned is None or learned.model is None:
        why = (
            missing
            or (learned.error if learned is not None else "")
            or (
                f"{learned.samples if learned else 0} usable migrations in config.changelog, "
                "too few to learn from"
            )
        )
        return {
            "source": f"assumed (the sandbox's default costs): {why}",
            "migrations": learned.samples if learned is not None else 0,
        }
    model = learned.model
    span = ""
    if learned.oldest and learned.newest:
        span = f", {learned.oldest:%Y-%m-%d %H:%M} to {learned.newest:%Y-%m-%d %H:%M} UTC"
    out: dict[str, Any] = {
        "source": f"learned from {learned.samples} migrations in config.changelog{span}",
        "migrations": learned.samples,
        "fixedSeconds": round(model.fixed_s, 3),
        "copyRateBytesPerSecond": round(model.rate, 1),
    }
    if model.shard_rates:
        out["shardRatesBytesPerSecond"] = {s: round(r, 1) for s, r in model.shard_rates.items()}
    if model.pair_rates:
        out["pairRatesBytesPerSecond"] = [
            {"donor": d, "recipient": r, "bytesPerSecond": round(v, 1)}
            for (d, r), v in sorted(model.pair_rates.items())
        ]
    return out


def rename(costs: dict[str, Any], shard: Any) -> dict[str, Any]:
    """The section with shard names passed through `shard` (anonymized twins)."""
    out = dict(costs)
    if "shardRatesBytesPerSecond" in out:
        out["shardRatesBytesPerSecond"] = {
            shard(s): r for s, r in out["shardRatesBytesPerSecond"].items()
        }
    if "pairRatesBytesPerSecond" in out:
        out["pairRatesBytesPerSecond"] = [
            {**p, "donor": shard(p["donor"]), "recipient": shard(p["recipient"])}
            for p in out["pairRatesBytesPerSecond"]
        ]
    return out
