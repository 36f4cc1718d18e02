"""The stable diagnostic codes of the policy language, one line each.

Codes never change meaning once released: CI annotations, docs and suppressions refer to them.
ZP1xx reading and schema, ZP2xx keys and ranges, ZP3xx zones and shards, ZP4xx firehose,
ZP5xx balancer.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    "ZP100": "a policy path cannot be read",
    "ZP101": "YAML syntax error",
    "ZP102": "file is not UTF-8 text",
    "ZP103": "file is over the size limit",
    "ZP104": "alias or merge expansion over the limit, or a recursive alias",
    "ZP105": "nesting deeper than the limit",
    "ZP106": "duplicate key in a mapping",
    "ZP107": "unsupported YAML tag or non-string mapping key",
    "ZP108": "empty document, or a document that is not a mapping",
    "ZP110": "unknown key",
    "ZP111": "missing required key",
    "ZP112": "wrong type or value",
    "ZP113": "unsupported apiVersion",
    "ZP114": "kind is not ZonePolicy",
    "ZP120": "no policy files found",
    "ZP130": "a shard is defined in two places",
    "ZP131": "a namespace is defined in two places",
    "ZP132": "the balancer is defined in two places",
    "ZP140": "invalid namespace",
    "ZP141": "invalid namespace pattern",
    "ZP142": "invalid collection-per-period template",
    "ZP200": "invalid Extended JSON value in a bound",
    "ZP201": "min is not less than max",
    "ZP202": "bound fields do not match the shard key",
    "ZP203": "ranges overlap",
    "ZP204": "identical range listed twice",
    "ZP205": "hashed field bound is not NumberLong, MinKey or MaxKey",
    "ZP206": "value cannot be stored in a shard key bound",
    "ZP207": "empty bound",
    "ZP210": "invalid shard key pattern",
    "ZP301": "zone is not assigned to any shard",
    "ZP302": "zone listed twice for a shard",
    "ZP303": "empty zone or shard name",
    "ZP401": "firehose field is not the first shard-key field",
    "ZP402": "firehose field is hashed",
    "ZP403": "bound value does not fit the firehose type",
    "ZP404": "invalid cron schedule",
    "ZP405": "cron schedule never fires",
    "ZP406": "unknown time zone",
    "ZP408": "firehose hot and cold are the same zone",
    "ZP409": "firehose without a key: checked at plan time",
    "ZP501": "activeWindow time is not HH:MM",
    "ZP502": "activeWindow start equals stop",
}
