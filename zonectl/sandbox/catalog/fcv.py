"""The feature compatibility version (FCV): the cluster's `admin.system.version` document.

MongoDB keeps the FCV as `{_id: "featureCompatibilityVersion", version: "7.0"}` in
`admin.system.version` on every node (mongo:src/mongo/db/repl/FCV_AND_FEATURE_FLAG_README.md);
through a mongos, `find` on admin.system.version reads the config server's copy, which is the
way MongoDB names for reading the cluster's FCV from a router (COMPASS-10539, after
SERVER-118760). `getParameter: {featureCompatibilityVersion: 1}` on a mongos answers the
mongos binary's own version, not the cluster's FCV (SERVER-100224, SERVER-118760: the
parameter was linked into mongos by mistake; 8.3 makes it InvalidOptions): the sandbox
answers it that way too, per profile (commands/admin.py).

A cluster file's `featureCompatibilityVersion:` may be the binary's own release or the last
LTS before it (the FCV a cluster keeps until `setFeatureCompatibilityVersion` after an
upgrade). The sandbox does not simulate an FCV upgrade or downgrade in progress
(`targetVersion`), nor `setFeatureCompatibilityVersion` itself.
"""

from __future__ import annotations

from zonectl.sandbox.catalog.namespaces import Catalog
from zonectl.sandbox.versions import VersionProfile

SYSTEM_VERSION = "admin.system.version"
FCV_ID = "featureCompatibilityVersion"
# Each profile's last LTS (the releases page: 5.0 follows 4.4, 6.0 follows 5.0, ...).
LAST_LTS = {"5.0": "4.4", "6.0": "5.0", "7.0": "6.0", "8.0": "7.0", "8.3": "8.0"}


def allowed(version: VersionProfile) -> tuple[str, ...]:
    """The FCVs a cluster of this binary version can run at."""
    own = version.major_minor
    return (own, LAST_LTS[own]) if own in LAST_LTS else (own,)


def install(catalog: Catalog, version: VersionProfile, fcv: str | None = None) -> None:
    """Write the FCV document (the binary's own release unless `fcv` names the last LTS).
    Raises ValueError naming the allowed values."""
    value = fcv or version.major_minor
    if value not in allowed(version):
        choices = " or ".join(repr(v) for v in allowed(version))
        raise ValueError(
            f"featureCompatibilityVersion {value!r} is not possible on MongoDB "
            f"{version.major_minor}: choose {choices}"
        )
    catalog.ensure(SYSTEM_VERSION).put({"_id": FCV_ID, "version": value})


def current(catalog: Catalog, version: VersionProfile) -> tuple[int, int]:
    """The cluster's FCV as (major, minor); the binary's own when no document is stored."""
    coll = catalog.get(SYSTEM_VERSION)
    doc = coll.get(FCV_ID) if coll is not None else None
    text = str(doc.get("version")) if doc else version.major_minor
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def below(catalog: Catalog, version: VersionProfile, release: tuple[int, int]) -> bool:
    """Is a feature of `release` off because the FCV is below it?"""
    return current(catalog, version) < release
