"""One Kubernetes CronJob per inventory cluster, as plain manifests (built, not written):
each runs `zonectl rotate --cluster NAME --yes` with only that cluster's URI secret, so
rotation scales out on the orchestrator rather than in a loop of ours."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.diagnostics import Diagnostic, Severity
from zonectl.errors import InvalidInventoryError
from zonectl.inventory.clusters import Cluster

POLICIES_DIR = "/etc/zonectl/policies"
INVENTORY_DIR = "/etc/zonectl/inventory"
# node-exporter's textfile directory on the node: each run writes its metrics there, so
# the alerts in deploy/prometheus/ see a failed or silent rotation (docs/metrics.md).
TEXTFILE_DIR = "/var/lib/node_exporter/textfile"


@dataclass(frozen=True)
class CronJobOptions:
    image: str = "ghcr.io/zonectl/zonectl:0.1.0"
    schedule: str = "*/10 * * * *"
    policies_configmap: str = "zonectl-policies"
    inventory_configmap: str = "zonectl-inventory"
    secret_prefix: str = "zonectl-"  # each cluster's URI: Secret PREFIX+NAME, key `uri`
    extra_args: tuple[str, ...] = ()  # e.g. ("--migrate",)


def secret_name(cluster: Cluster, options: CronJobOptions) -> str:
    return f"{options.secret_prefix}{cluster.name}"


def build_cronjobs(clusters: Sequence[Cluster], options: CronJobOptions) -> list[dict[str, Any]]:
    return [build_cronjob(c, options) for c in clusters]


def build_cronjob(cluster: Cluster, options: CronJobOptions) -> dict[str, Any]:
    """The CronJob that runs `zonectl rotate` for `cluster` on `options.schedule`: a
    locked-down container, the pod that mounts its policies, inventory and URI secret,
    and the schedule around it."""
    env, mounts, volumes = _uri_wiring(cluster, options)
    container = _container(cluster, options, env, mounts)
    pod = _pod_spec(options, container, volumes)
    return _cronjob(cluster, options, pod)


def _labels(cluster: Cluster) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "zonectl",
        "app.kubernetes.io/component": "rotate",
        "zonectl.io/cluster": cluster.name,
    }


def _rotate_args(cluster: Cluster, options: CronJobOptions) -> list[str]:
    """`zonectl rotate` for this cluster only, writing its metrics for node-exporter."""
    return [
        "rotate",
        POLICIES_DIR,
        "--inventory",
        f"{INVENTORY_DIR}/clusters.yaml",
        "--cluster",
        cluster.name,
        "--yes",
        "--metrics-file",
        f"{TEXTFILE_DIR}/zonectl-rotate-{cluster.name}.prom",
        *options.extra_args,
    ]


def _container(
    cluster: Cluster,
    options: CronJobOptions,
    env: list[dict[str, Any]],
    mounts: list[dict[str, Any]],
) -> dict[str, Any]:
    """The zonectl container: no privilege, a read-only root, writable /tmp and textfile
    directory only, the URI's environment variable when it comes as one."""
    container = {
        "name": "zonectl",
        "image": options.image,
        "imagePullPolicy": "IfNotPresent",
        "command": ["zonectl"],
        "args": _rotate_args(cluster, options),
        "env": env,
        "volumeMounts": [
            {"name": "policies", "mountPath": POLICIES_DIR, "readOnly": True},
            {"name": "inventory", "mountPath": INVENTORY_DIR, "readOnly": True},
            *mounts,
            {"name": "tmp", "mountPath": "/tmp"},
            {"name": "textfile", "mountPath": TEXTFILE_DIR},
        ],
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        },
        "resources": {
            "requests": {"cpu": "50m", "memory": "128Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi"},
        },
    }
    if not env:
        del container["env"]
    return container


def _pod_spec(
    options: CronJobOptions, container: dict[str, Any], volumes: list[dict[str, Any]]
) -> dict[str, Any]:
    """One run's pod: non-root, no service account token, never restarted; the policies and
    inventory ConfigMaps, the URI secret when it is a file, scratch and textfile volumes."""
    return {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 10001,
            "runAsGroup": 10001,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "containers": [container],
        "volumes": [
            {"name": "policies", "configMap": {"name": options.policies_configmap}},
            {"name": "inventory", "configMap": {"name": options.inventory_configmap}},
            *volumes,
            {"name": "tmp", "emptyDir": {"sizeLimit": "16Mi"}},
            {"name": "textfile", "hostPath": {"path": TEXTFILE_DIR, "type": "DirectoryOrCreate"}},
        ],
    }


def _cronjob(cluster: Cluster, options: CronJobOptions, pod: dict[str, Any]) -> dict[str, Any]:
    """The CronJob around the pod: one run at a time, no retry (the next tick is one)."""
    labels = _labels(cluster)
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": f"zonectl-rotate-{cluster.name}", "labels": labels},
        "spec": {
            "schedule": options.schedule,
            "timeZone": "Etc/UTC",
            # zonectl's lease refuses a second run on the same cluster anyway.
            "concurrencyPolicy": "Forbid",
            "startingDeadlineSeconds": 300,
            "successfulJobsHistoryLimit": 3,
            "failedJobsHistoryLimit": 5,
            "jobTemplate": {
                "spec": {
                    # The next tick re-plans from the live state: that is the retry.
                    "backoffLimit": 0,
                    "activeDeadlineSeconds": 3000,
                    "ttlSecondsAfterFinished": 86400,
                    "template": {"metadata": {"labels": dict(labels)}, "spec": pod},
                }
            },
        },
    }


def _uri_wiring(
    cluster: Cluster, options: CronJobOptions
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The cluster's URI reaches the pod the way the inventory reads it: an environment
    variable from its Secret, or its Secret mounted where the inventory's file path points."""
    source = cluster.uri
    secret = secret_name(cluster, options)
    if source.kind == "env":
        ref = {"secretKeyRef": {"name": secret, "key": "uri"}}
        return [{"name": source.ref, "valueFrom": ref}], [], []
    if source.kind == "file":
        written = source.written or source.ref
        path = posixpath.normpath(posixpath.join(INVENTORY_DIR, written))
        directory, filename = posixpath.split(path)
        if not directory.startswith(INVENTORY_DIR + "/"):
            message = (
                f"cluster {cluster.name}: its URI file {written} would be mounted at "
                f"{directory}, over the inventory's ConfigMap at {INVENTORY_DIR} (a "
                "Secret mounts as a directory)"
            )
            hint = f"move the file into a subdirectory, e.g. secrets/{filename}"
            diagnostic = Diagnostic("ZI135", Severity.ERROR, source.position, message, hint)
            raise InvalidInventoryError("no CronJob for this inventory", diagnostics=[diagnostic])
        mount = {"name": "uri", "mountPath": directory, "readOnly": True}
        items = [{"key": "uri", "path": filename}]
        volume = {"name": "uri", "secret": {"secretName": secret, "items": items}}
        return [], [mount], [volume]
    return [], [], []
