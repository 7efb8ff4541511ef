"""The least of a core API that apiextensions-apiserver needs to become ready.

apiextensions-apiserver keeps informers on core kinds (Services, for CRD
conversion webhooks) through the --kubeconfig it is given, and /readyz stays
failing until they sync. This answers their LIST with an empty list and their
WATCH (including a watch-list request, sendInitialEvents=true) with the
end-of-initial-events bookmark, then an idle stream. Core kinds themselves are
served to tests by the project's kube-emulator, not by this stub.

Usage: python3 core-stub.py PORT  (listens on 127.0.0.1 only)
"""

import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        path = url.path.rstrip("/")
        if path == "/version":
            return self.send_json(200, {"major": "1", "minor": "36", "gitVersion": "v1.36.0"})
        if path == "/api":
            return self.send_json(200, {"kind": "APIVersions", "versions": ["v1"]})
        if path == "/apis":
            return self.send_json(200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": []})
        m = re.fullmatch(r"/api/v1(?:/namespaces/[^/]+)?/([a-z]+)", path)
        if not m:
            return self.send_json(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                        "reason": "NotFound", "code": 404})
        kind = m.group(1).rstrip("s").capitalize()
        if query.get("watch") not in ("true", "1"):
            return self.send_json(200, {"kind": kind + "List", "apiVersion": "v1",
                                        "metadata": {"resourceVersion": "1"}, "items": []})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if query.get("sendInitialEvents") == "true":
            event = {"type": "BOOKMARK", "object": {"kind": kind, "apiVersion": "v1", "metadata": {
                "resourceVersion": "1", "annotations": {"k8s.io/initial-events-end": "true"}}}}
            line = json.dumps(event).encode() + b"\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
            self.wfile.flush()
        # Nothing ever changes: hold the watch open until the client's timeout.
        time.sleep(min(int(query.get("timeoutSeconds", "300")), 600))
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), fmt % args))


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
