"""What the acceptance tests need of EKS that moto 5.2.5 lacks, kept small
(moto 5.2.5; see acceptance-tests/README.md):

- Access entries (CreateAccessEntry, DescribeAccessEntry, DeleteAccessEntry,
  ListAccessEntries): moto answers them with an HTML 404. Stored here per
  cluster, in the EKS API's JSON shapes.
- Status sequences: moto's node groups and clusters are ACTIVE at once. A test
  registers the statuses the next DescribeNodegroup / DescribeCluster answers
  should show after a create, update or delete, or right away (POST /_eksgpu/status
  {"kind": "nodegroup"|"cluster", "name", "after_create"|"after_update"|"after_delete"|"now": [...]}),
  as real EKS goes CREATING -> ACTIVE, UPDATING -> ACTIVE, DELETING -> gone.
- Fields moto drops or ignores, put back into Describe answers:
  computeConfig / storageConfig of the cluster (dropped), the VPC id of the
  cluster's subnets (never computed), and a node group's updateConfig and
  nodeRepairConfig sent at creation (ignored until an update).
- UpdateNodegroupVersion (moto has none): sets the node group's releaseVersion and version.
- TagResource / UntagResource on node groups and access entries (moto tags
  clusters only).
"""

import json
import re
import threading
import time
from urllib.parse import parse_qs, unquote

ACCOUNT = "123456789012"
LOCK = threading.Lock()
ACCESS_ENTRIES = {}  # cluster -> principal -> entry
CLUSTER_EXTRAS = {}  # cluster -> {"computeConfig": ..., "storageConfig": ...}
NODEGROUP_UPDATE_CONFIG = {}  # nodegroup -> updateConfig sent at creation
NODEGROUP_REPAIR_CONFIG = {}  # nodegroup -> nodeRepairConfig sent at creation
SEQUENCES = {}  # (kind, name) -> {"after_create": [...], ...}
QUEUES = {}  # (kind, name) -> statuses still to show
LAST_BODY = {}  # (kind, name) -> last successful Describe body, to show DELETING after moto deleted it


def reset():
    with LOCK:
        for d in (ACCESS_ENTRIES, CLUSTER_EXTRAS, NODEGROUP_UPDATE_CONFIG, NODEGROUP_REPAIR_CONFIG, SEQUENCES, QUEUES, LAST_BODY):
            d.clear()


def register_sequence(payload):
    """Statuses for later operations ("after_<op>"), or for the next Describe
    calls ("now"); drops what an earlier operation still had to show."""
    key = (payload["kind"], payload["name"])
    with LOCK:
        SEQUENCES.setdefault(key, {}).update({k: v for k, v in payload.items() if k.startswith("after_")})
        QUEUES[key] = list(payload.get("now", []))


def region_of(environ):
    m = re.search(r"Credential=[^/]+/\d+/([^/]+)/", environ.get("HTTP_AUTHORIZATION", ""))
    return m.group(1) if m else "us-east-1"


def cluster_exists(environ, name):
    from moto.eks.models import eks_backends

    return name in eks_backends[ACCOUNT][region_of(environ)].clusters


def json_answer(status, body, error=None):
    headers = [("Content-Type", "application/json")]
    if error:
        headers.append(("x-amzn-ErrorType", error))
    return status, headers, json.dumps(body).encode()


def not_found(message):
    return json_answer("404 Not Found", {"message": message}, "ResourceNotFoundException")


def access_entries(environ, body):
    """Serves the access entry operations; None when the request is not one."""
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    m = re.fullmatch(r"/clusters/([^/]+)/access-entries(?:/(.+))?", path)
    if not m:
        return None
    cluster, principal = m.group(1), unquote(m.group(2)) if m.group(2) else None
    if not cluster_exists(environ, cluster):
        return not_found(f"No cluster found for name: {cluster}.")
    with LOCK:
        entries = ACCESS_ENTRIES.setdefault(cluster, {})
        if principal is None and method == "POST":
            req = json.loads(body or b"{}")
            principal = req["principalArn"]
            if principal in entries:
                return json_answer("409 Conflict", {"message": f"The specified access entry resource is already in use on this cluster."}, "ResourceInUseException")
            now = time.time()
            entries[principal] = {
                "clusterName": cluster,
                "principalArn": principal,
                "kubernetesGroups": req.get("kubernetesGroups", []),
                "accessEntryArn": f"arn:aws:eks:{region_of(environ)}:{ACCOUNT}:access-entry/{cluster}/role/{principal.rsplit('/', 1)[-1]}",
                "createdAt": now,
                "modifiedAt": now,
                "tags": req.get("tags", {}),
                "username": req.get("username") or "system:node:{{SessionName}}",
                "type": req.get("type", "STANDARD"),
            }
            return json_answer("200 OK", {"accessEntry": entries[principal]})
        if principal is None and method == "GET":
            return json_answer("200 OK", {"accessEntries": sorted(entries), "nextToken": None})
        if principal not in entries:
            return not_found(f"The specified principalArn could not be found. You can view your available access entries with 'list-access-entries'.")
        if method == "GET":
            return json_answer("200 OK", {"accessEntry": entries[principal]})
        if method == "DELETE":
            del entries[principal]
            return json_answer("200 OK", {})
    return None


def node_group_version(environ, body):
    """Serves UpdateNodegroupVersion on moto's node group; None when the request is not one."""
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    m = re.fullmatch(r"/clusters/([^/]+)/node-groups/([^/]+)/update-version", path)
    if not m or method != "POST":
        return None
    from moto.eks.models import eks_backends

    cluster, name = m.group(1), m.group(2)
    backend = eks_backends[ACCOUNT][region_of(environ)]
    ng = backend.clusters.get(cluster) and backend.clusters[cluster].nodegroups.get(name)
    if not ng:
        return not_found(f"No node group found for name: {name}.")
    req = json.loads(body or b"{}")
    if "releaseVersion" in req:
        ng.release_version = req["releaseVersion"]
    if "version" in req:
        ng.version = req["version"]
    if "launchTemplate" in req and ng.launch_template is not None:
        # UpdateNodegroupVersion to another launch template version (moto has no update-version route).
        ng.launch_template.update({k: v for k, v in req["launchTemplate"].items() if k in ("id", "version")})
    with LOCK:
        key = ("nodegroup", name)
        QUEUES[key] = list(SEQUENCES.get(key, {}).get("after_update", []))
        LAST_BODY.pop(key, None)
    update = {"id": f"{name}-version", "status": "InProgress", "type": "VersionUpdate", "params": [{"type": "ReleaseVersion", "value": req.get("releaseVersion", "")}], "createdAt": time.time(), "errors": []}
    return json_answer("200 OK", {"update": update})


def tags(environ, body):
    """Serves TagResource / UntagResource on node groups and access entries; None otherwise (clusters go to moto)."""
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    m = re.fullmatch(r"/tags/(.+)", path)
    if not m or method not in ("POST", "DELETE"):
        return None
    arn = unquote(m.group(1))
    target = None
    if ":nodegroup/" in arn:
        from moto.eks.models import eks_backends

        for cluster in eks_backends[ACCOUNT][region_of(environ)].clusters.values():
            for ng in cluster.nodegroups.values():
                if ng.arn == arn:
                    ng.tags = ng.tags or {}
                    target = ng.tags
    elif ":access-entry/" in arn:
        with LOCK:
            for entries in ACCESS_ENTRIES.values():
                for entry in entries.values():
                    if entry["accessEntryArn"] == arn:
                        target = entry["tags"]
    else:
        return None
    if target is None:
        return not_found(f"Resource was not found: {arn}")
    with LOCK:
        if method == "POST":
            target.update(json.loads(body or b"{}").get("tags", {}))
        else:
            for key in parse_qs(environ.get("QUERY_STRING", "")).get("tagKeys", []):
                target.pop(key, None)
    return json_answer("200 OK", {})


def remember_request(environ, body):
    """Keeps what moto would drop from a create or update request."""
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    if method != "POST":
        return
    req = json.loads(body or b"{}") if body.startswith(b"{") else {}
    with LOCK:
        if path == "/clusters":
            CLUSTER_EXTRAS[req.get("name")] = {k: req[k] for k in ("computeConfig", "storageConfig") if k in req}
        m = re.fullmatch(r"/clusters/([^/]+)/update-config", path)
        if m:
            extras = CLUSTER_EXTRAS.setdefault(m.group(1), {})
            extras.update({k: req[k] for k in ("computeConfig", "storageConfig") if k in req})
        m = re.fullmatch(r"/clusters/[^/]+/node-groups", path)
        if m and "updateConfig" in req:
            NODEGROUP_UPDATE_CONFIG[req.get("nodegroupName")] = req["updateConfig"]
        if m and "nodeRepairConfig" in req:
            NODEGROUP_REPAIR_CONFIG[req.get("nodegroupName")] = req["nodeRepairConfig"]


def target(environ):
    """(kind, name, operation) of an EKS cluster or node group request."""
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    m = re.fullmatch(r"/clusters/([^/]+)/node-groups(?:/([^/]+))?(/update-config)?", path)
    if m:
        if m.group(2) is None:
            return ("nodegroup", None, "create") if method == "POST" else None
        op = {"GET": "describe", "DELETE": "delete"}.get(method)
        return ("nodegroup", m.group(2), "update" if m.group(3) else op)
    m = re.fullmatch(r"/clusters/([^/]+)(/update-config)?", path)
    if m:
        op = "update" if m.group(2) else {"GET": "describe", "DELETE": "delete"}.get(method)
        return ("cluster", m.group(1), op)
    return None


def patch(environ, request_body, status, headers, body):
    """Adjusts moto's answer: status sequences and dropped fields."""
    t = target(environ)
    if not t:
        return status, headers, body
    kind, name, op = t
    ok = status.startswith("200")
    data = json.loads(body) if body.startswith(b"{") else None
    if op == "create" and ok and data:
        name = (data.get("nodegroup") or data.get("cluster") or {}).get("nodegroupName") or name
    key = (kind, name)
    with LOCK:
        if ok and data and kind in data:
            LAST_BODY[key] = data
        if ok and op in ("create", "update", "delete"):
            seq = SEQUENCES.get(key, {}).get(f"after_{op}", [])
            QUEUES[key] = list(seq)
        if op != "describe":
            return status, headers, body
        queue = QUEUES.get(key) or []
        shown = queue.pop(0) if queue else None
        if not ok and shown and key in LAST_BODY:
            # moto already deleted it; real EKS still shows it DELETING.
            data, status = json.loads(json.dumps(LAST_BODY[key])), "200 OK"
        if not data or not status.startswith("200"):
            return status, headers, body
        obj = data.get(kind)
        if obj is None:
            return status, headers, body
        if shown:
            obj["status"] = shown
        if kind == "cluster":
            for k, v in CLUSTER_EXTRAS.get(name, {}).items():
                obj.setdefault(k, v)
            vpc = obj.setdefault("resourcesVpcConfig", {})
            if not vpc.get("vpcId") and vpc.get("subnetIds"):
                vpc["vpcId"] = vpc_of(environ, vpc["subnetIds"][0])
        else:
            if "updateConfig" not in obj and name in NODEGROUP_UPDATE_CONFIG:
                obj["updateConfig"] = NODEGROUP_UPDATE_CONFIG[name]
            if "nodeRepairConfig" not in obj and name in NODEGROUP_REPAIR_CONFIG:
                obj["nodeRepairConfig"] = NODEGROUP_REPAIR_CONFIG[name]
    headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
    return status, headers, json.dumps(data).encode()


def vpc_of(environ, subnet_id):
    from moto.ec2.models import ec2_backends

    try:
        return ec2_backends[ACCOUNT][region_of(environ)].get_subnet(subnet_id).vpc_id
    except Exception:  # noqa: BLE001 - an unknown subnet simply has no VPC here
        return None
