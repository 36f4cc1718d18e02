"""`zonectl fleet cronjobs`: a YAML stream with one CronJob per inventory cluster, each
running rotate for its own cluster with only its own URI secret; deploy/fleet/cronjobs.yaml
is exactly what the generator makes from deploy/fleet/clusters.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fleet_kit import zonectl
from ruamel.yaml import YAML

DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "fleet"


def generate(*args: str) -> tuple[int, str, str]:
    return zonectl("fleet", "cronjobs", "--inventory", str(DEPLOY / "clusters.yaml"), *args)


def container(job: dict[str, Any]) -> dict[str, Any]:
    (only,) = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"]
    return dict(only)


def test_one_cronjob_per_cluster_each_with_its_own_secret() -> None:
    code, out, _ = generate()
    assert code == 0
    jobs = list(YAML(typ="safe", pure=True).load_all(out))
    assert [(j["kind"], j["metadata"]["name"]) for j in jobs] == [
        ("CronJob", "zonectl-rotate-prod-eu"),
        ("CronJob", "zonectl-rotate-prod-us"),
        ("CronJob", "zonectl-rotate-staging"),
    ]
    for job, name in zip(jobs, ("prod-eu", "prod-us", "staging"), strict=True):
        args = container(job)["args"]
        assert args[:2] == ["rotate", "/etc/zonectl/policies"]
        assert args[args.index("--cluster") + 1] == name and "--yes" in args
        # Each cluster's run writes its own textfile, in a directory mounted from the node.
        metrics = args[args.index("--metrics-file") + 1]
        assert metrics == f"/var/lib/node_exporter/textfile/zonectl-rotate-{name}.prom"
        mounts = {m["mountPath"]: m["name"] for m in container(job)["volumeMounts"]}
        volumes = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]["volumes"]
        textfile = next(v for v in volumes if v["name"] == mounts[metrics.rsplit("/", 1)[0]])
        assert textfile["hostPath"]["path"] == "/var/lib/node_exporter/textfile"
    eu_env = container(jobs[0])["env"]
    assert eu_env == [
        {
            "name": "ZONECTL_URI_PROD_EU",
            "valueFrom": {"secretKeyRef": {"name": "zonectl-prod-eu", "key": "uri"}},
        }
    ]
    assert "ZONECTL_URI_PROD_EU" not in out.split("zonectl-rotate-prod-us")[1]  # only its own
    staging = jobs[2]["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    assert "env" not in container(jobs[2])
    assert {"name": "uri", "mountPath": "/etc/zonectl/inventory/secrets", "readOnly": True} in (
        container(jobs[2])["volumeMounts"]
    )
    secret = next(v for v in staging["volumes"] if v["name"] == "uri")["secret"]
    assert secret == {
        "secretName": "zonectl-staging",
        "items": [{"key": "uri", "path": "staging.uri"}],
    }


def test_a_selector_limits_the_cronjobs_and_options_reach_them() -> None:
    code, out, _ = generate("--selector", "env=prod", "--schedule", "*/5 * * * *", "--migrate")
    assert code == 0
    jobs = list(YAML(typ="safe", pure=True).load_all(out))
    assert len(jobs) == 2
    assert all(j["spec"]["schedule"] == "*/5 * * * *" for j in jobs)
    assert all("--migrate" in container(j)["args"] for j in jobs)


def test_the_checked_in_cronjobs_are_what_the_generator_makes() -> None:
    _, out, _ = generate()
    checked_in = (DEPLOY / "cronjobs.yaml").read_text(encoding="utf-8")
    assert checked_in == out, (
        "regenerate: zonectl fleet cronjobs --inventory deploy/fleet/clusters.yaml "
        "> deploy/fleet/cronjobs.yaml"
    )


def test_fleet_list_shows_where_each_uri_comes_from_never_the_uri() -> None:
    code, out, _ = zonectl("fleet", "list", "--inventory", str(DEPLOY / "clusters.yaml"))
    assert code == 0
    assert out.splitlines() == [
        "prod-eu\tenv=prod,region=eu\turi from $ZONECTL_URI_PROD_EU",
        "prod-us\tenv=prod,region=us\turi from $ZONECTL_URI_PROD_US  (overlay)",
        "staging\tenv=staging,region=eu\turi from " + str(DEPLOY / "secrets/staging.uri"),
    ]


def test_a_uri_file_a_pod_cannot_mount_is_refused_naming_where_it_is(tmp_path: Path) -> None:
    """The URI Secret mounts as a directory: a file beside clusters.yaml (or above it) put
    it on the inventory ConfigMap's mountPath, a manifest the API server refuses
    (mountPath must be unique) and that would hide clusters.yaml. One in a subdirectory
    mounts there."""
    for written, code in (("a.uri", 3), ("../a.uri", 3), ("sec/a.uri", 0)):
        inventory = tmp_path / "clusters.yaml"
        inventory.write_text(
            "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
            f"  - {{name: a, uri: {{file: {written}}}}}\n"
        )
        done, out, err = zonectl("fleet", "cronjobs", "--inventory", str(inventory))
        assert done == code, err
        if code:
            assert f"{inventory}:4:" in err and "ZI135" in err and "secrets/a.uri" in err
            continue
        (job,) = [d for d in YAML(typ="safe").load_all(out) if d and d["kind"] == "CronJob"]
        pod = job["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        paths = [m["mountPath"] for m in pod["containers"][0]["volumeMounts"]]
        assert len(paths) == len(set(paths)) and "/etc/zonectl/inventory/sec" in paths
