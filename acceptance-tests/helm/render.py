"""Renders Helm charts offline with Helm's own Go SDK (PyPI `helm-python-sdk`, no helm binary),
for the Helm lane (acceptance-tests/src/helm.rs).

Reads one JSON request on stdin:
  {"jobs": [{"chart": DIR, "values_yaml": TEXT, "release": NAME, "namespace": NS}, ...]}
and writes one JSON answer on stdout: per job, in order,
  {"ok": true, "values": {...}, "objects": [{"template": PATH, "object": {...}}, ...],
   "defaults": {...}, "schemas": {"": {...}, "<subchart>": {...}}}
or {"ok": false, "error": "..."} where the chart refuses the values (its schema, a `fail` in
its validation templates, a template error).

Each job loads its chart afresh: one loaded chart object must not be rendered twice (after a
render with a subchart disabled, Helm's dependency processing has pruned it from that object,
and a later render leaves it out even when enabled).
"""

import json
import os
import sys

import helm_python as helm


def documents(text):
    """The YAML documents of one rendered template, parsed by Helm's own YAML reader
    (sigs.k8s.io/yaml, as Helm and kubectl read manifests); empty documents dropped."""
    out, current = [], []
    for line in text.split("\n") + ["---"]:
        if line.startswith("---"):
            doc = "\n".join(current).strip()
            current = []
            if doc and any(not l.lstrip().startswith("#") for l in doc.splitlines() if l.strip()):
                parsed = helm.values_from_yaml(doc)
                if parsed:
                    out.append(parsed)
        else:
            current.append(line)
    return out


def subchart_schemas(chart_dir, chart):
    """values.schema.json of each subchart under charts/, by the name its values sit under."""
    out = {}
    names = {}
    for dep in chart.metadata.get("dependencies") or []:
        names[dep.get("name")] = dep.get("alias") or dep.get("name")
    sub = os.path.join(chart_dir, "charts")
    if not os.path.isdir(sub):
        return out
    for entry in sorted(os.listdir(sub)):
        c = helm.Chart.load(os.path.join(sub, entry))
        try:
            if c.schema is not None:
                out[names.get(c.name, c.name)] = c.schema
        finally:
            c.close()
    return out


def render(job):
    chart = helm.Chart.load(job["chart"])
    try:
        try:
            # Helm's own reader of a values file (`helm install -f`).
            values = helm.values_from_yaml(job["values_yaml"])
        except helm.HelmError as e:
            return {"ok": False, "error": "values are not YAML Helm reads: %s" % e}
        defaults = chart.merge_values({})
        schemas = {"": chart.schema} if chart.schema is not None else {}
        schemas.update(subchart_schemas(job["chart"], chart))
        try:
            chart.validate_schema(values)
            rendered = chart.render(values=values, name=job["release"], namespace=job["namespace"], is_install=True)
        except helm.HelmError as e:
            return {"ok": False, "error": str(e)}
        objects = []
        for path in sorted(rendered):
            # NOTES.txt is text shown after an install, not a manifest (Helm skips it too).
            if path.endswith("NOTES.txt"):
                continue
            for obj in documents(rendered[path]):
                objects.append({"template": path, "object": obj})
        return {"ok": True, "values": values, "objects": objects, "defaults": defaults, "schemas": schemas}
    finally:
        chart.close()


def main():
    request = json.load(sys.stdin)
    answer = {"helm_sdk": helm.helm_sdk_version(), "results": [render(j) for j in request["jobs"]]}
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
