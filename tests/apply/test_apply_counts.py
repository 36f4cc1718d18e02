"""apply's summary counts what it printed: the plan's ops, then the splits --migrate sent
at zone boundaries (each prints a "done" line, but is not an op of the plan)."""

from __future__ import annotations

import re

from apply_kit import MIGRATE, Cluster, zonectl


def test_the_summary_counts_every_done_line_splits_included(cluster: Cluster) -> None:
    result = zonectl("apply", str(MIGRATE), "--uri", cluster.uri, "--yes")
    assert result.code == 0, result.err
    done = [line for line in result.err.splitlines() if line.startswith("  done ")]
    splits = [line for line in done if line.startswith("  done   split ")]
    assert len(splits) == 1  # [1500, 1600) at 1550
    found = re.search(r"(\d+)/(\d+) op\(s\) and 1 split,", result.err)
    assert found is not None, result.err
    assert found.group(1) == found.group(2)
    assert int(found.group(1)) + len(splits) == len(done)
