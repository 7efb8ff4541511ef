"""A thin front for moto's WSGI app, for the acceptance tests.

It adds only what the tests need and moto lacks (moto 5.2.5; its gaps are listed in acceptance-tests/README.md):

- EKS DescribeCluster stands in for a real cluster's endpoint and CA: moto invents
  an unreachable endpoint and CA data that is not PEM, so a test registers the
  local Kubernetes emulator's URL and CA for a cluster name
  (POST /_eksgpu/clusters/<name> {"endpoint", "ca_data"}) and DescribeCluster
  answers with them.
- A request log (GET/DELETE /_eksgpu/requests) to count AWS calls (with the parameters of STS AssumeRole*).
- Fault injection (POST/DELETE /_eksgpu/faults): throttling, 5xx and latency, in
  the error format of each protocol (restJson for EKS, query/XML for EC2).
- The EKS operations and behaviours moto lacks (eks_gaps.py): access entries,
  CREATING/UPDATING/DELETING status sequences (POST /_eksgpu/status), and the
  fields moto drops from Describe answers.

Everything else is moto, unchanged.
"""

import argparse
import io
import json
import re
import threading
import time
import urllib.parse

import eks_gaps
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import make_server

LOCK = threading.Lock()
CLUSTERS = {}
REQUESTS = []
FAULTS = []


def json_response(start_response, status, body, headers=()):
    data = json.dumps(body).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(data)))] + list(headers))
    return [data]


def read_body(environ):
    length = int(environ.get("CONTENT_LENGTH") or 0)
    body = environ["wsgi.input"].read(length) if length else b""
    environ["wsgi.input"] = io.BytesIO(body)
    return body


def operation(environ, body):
    """The AWS operation: the query protocol's Action, else method and path (restJson)."""
    m = re.search(rb"(?:^|&)Action=([A-Za-z]+)", body)
    if m:
        return m.group(1).decode()
    return environ["REQUEST_METHOD"] + " " + environ.get("PATH_INFO", "")


def control(environ, start_response, body):
    path, method = environ.get("PATH_INFO", ""), environ["REQUEST_METHOD"]
    payload = json.loads(body or b"null")
    with LOCK:
        m = re.fullmatch(r"/_eksgpu/clusters/([^/]+)", path)
        if m and method == "POST":
            CLUSTERS[m.group(1)] = payload
        elif path == "/_eksgpu/requests" and method == "GET":
            return json_response(start_response, "200 OK", REQUESTS)
        elif path == "/_eksgpu/requests" and method == "DELETE":
            REQUESTS.clear()
        elif path == "/_eksgpu/faults" and method == "POST":
            FAULTS.append(dict(payload, remaining=payload.get("count", 1)))
        elif path == "/_eksgpu/faults" and method == "DELETE":
            FAULTS.clear()
        elif path == "/_eksgpu/status" and method == "POST":
            eks_gaps.register_sequence(payload)
        else:
            return json_response(start_response, "404 Not Found", {"message": "unknown control endpoint"})
    return json_response(start_response, "200 OK", {"status": "ok"})


def take_fault(environ, op):
    with LOCK:
        for f in FAULTS:
            if f["remaining"] <= 0:
                continue
            if f.get("method") and f["method"] != environ["REQUEST_METHOD"]:
                continue
            if f.get("path") and not re.search(f["path"], environ.get("PATH_INFO", "")):
                continue
            if f.get("action") and f["action"] != op:
                continue
            if f.get("after", 0) > 0:
                f["after"] -= 1  # let this many matching requests through first
                continue
            f["remaining"] -= 1
            return dict(f)
    return None


def fault_response(start_response, fault, query_protocol):
    time.sleep(fault.get("latency_ms", 0) / 1000)
    status = fault.get("status")
    if not status:
        return None
    code = fault.get("code", "InternalFailure")
    reason = {429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable"}.get(status, "Error")
    if query_protocol:
        data = (
            f"<Response><Errors><Error><Code>{code}</Code><Message>injected fault</Message></Error></Errors>"
            f"<RequestID>fault-0000</RequestID></Response>"
        ).encode()
        start_response(f"{status} {reason}", [("Content-Type", "text/xml"), ("Content-Length", str(len(data)))])
        return [data]
    return json_response(start_response, f"{status} {reason}", {"message": "injected fault"}, [("x-amzn-ErrorType", code)])


def describe_cluster_patch(environ, status, headers, body):
    """Replace endpoint and CA of a registered cluster in a DescribeCluster answer."""
    m = re.fullmatch(r"/clusters/([^/]+)", environ.get("PATH_INFO", ""))
    if environ["REQUEST_METHOD"] != "GET" or not m:
        return headers, body
    with LOCK:
        registered = CLUSTERS.get(m.group(1))
    if not registered or not status.startswith("200"):
        return headers, body
    data = json.loads(body)
    data["cluster"]["endpoint"] = registered["endpoint"]
    data["cluster"]["certificateAuthority"] = {"data": registered["ca_data"]}
    if "version" in registered:
        data["cluster"]["version"] = registered["version"]
    return [(k, v) for k, v in headers if k.lower() != "content-length"], json.dumps(data).encode()


def front(app):
    def wsgi(environ, start_response):
        path = environ.get("PATH_INFO", "")
        body = read_body(environ)
        if path.startswith("/_eksgpu/"):
            return control(environ, start_response, body)
        op = operation(environ, body)
        if not path.startswith("/moto-api"):
            with LOCK:
                entry = {"operation": op, "method": environ["REQUEST_METHOD"], "path": path}
                if op.startswith("AssumeRole"):
                    # The STS parameters the provider sent (duration, tags, source identity), for the auth tests.
                    entry["params"] = dict(urllib.parse.parse_qsl(body.decode()))
                REQUESTS.append(entry)
        fault = take_fault(environ, op)
        if fault:
            answer = fault_response(start_response, fault, query_protocol=not op.startswith(("GET ", "POST ", "PUT ", "DELETE ")))
            if answer is not None:
                return answer
        served = eks_gaps.access_entries(environ, body)
        if served is None:
            served = eks_gaps.node_group_version(environ, body)
        if served is None:
            served = eks_gaps.tags(environ, body)
        if served is not None:
            status, headers, data = served
            start_response(status, headers + [("Content-Length", str(len(data)))])
            return [data]
        eks_gaps.remember_request(environ, body)
        captured = [None, None]

        def capture(status, headers, exc_info=None):
            captured[0], captured[1] = status, list(headers)

        data = b"".join(app(environ, capture))
        status, headers, data = eks_gaps.patch(environ, body, captured[0], captured[1], data)
        headers, data = describe_cluster_patch(environ, status, headers, data)
        headers = [(k, v) for k, v in headers if k.lower() != "content-length"] + [("Content-Length", str(len(data)))]
        start_response(status, headers)
        return [data]

    return wsgi


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0, help="0: a free port, printed on stdout")
    args = parser.parse_args()
    app = DomainDispatcherApplication(create_backend_app)
    server = make_server("127.0.0.1", args.port, front(app), threaded=True, request_handler=MotoRequestHandler)
    # The port the OS chose: no race between picking a port and binding it.
    print(json.dumps({"port": server.server_port}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
