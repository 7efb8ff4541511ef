//! Where the values come from: resources and data sources as Terraform holds them, whatever HCL
//! wrote them. After each successful `terraform apply` of the acceptance tests the state file
//! is read (no extra CLI call) and, when `EKSGPU_VALUES_LOG` names a folder, every instance of a
//! type in [`OUTPUTS`](super::OUTPUTS) is written there, one file per distinct instance; a plan
//! saved with `-out` is read the same way ([`from_plan`]).

use std::path::Path;

use serde_json::{Value, json};

/// One resource or data source instance with a values output.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The example or the test it came from.
    pub source: String,
    /// `eksgpu_node_strategy.genai`, `module.x.data.eksgpu_gpu_stack.s`.
    pub address: String,
    /// The resource or data source type.
    pub kind: String,
    /// Its attributes as Terraform holds them (nested blocks as lists of objects).
    pub attributes: Value,
}

fn wanted(kind: &str) -> bool {
    super::OUTPUTS.iter().any(|o| o.kind == kind)
}

/// The instances of a local state file (`terraform.tfstate`, format 4).
pub fn from_state(state: &Value, source: &str) -> Vec<Record> {
    let mut out = Vec::new();
    for r in state["resources"].as_array().into_iter().flatten() {
        let kind = r["type"].as_str().unwrap_or_default();
        if !wanted(kind) {
            continue;
        }
        let mut base = String::new();
        if let Some(m) = r["module"].as_str() {
            base = format!("{m}.");
        }
        if r["mode"] == "data" {
            base.push_str("data.");
        }
        let name = r["name"].as_str().unwrap_or_default();
        for i in r["instances"].as_array().into_iter().flatten() {
            let key = match &i["index_key"] {
                Value::Null => String::new(),
                Value::String(s) => format!("[\"{s}\"]"),
                k => format!("[{k}]"),
            };
            out.push(Record {
                source: source.to_owned(),
                address: format!("{base}{kind}.{name}{key}"),
                kind: kind.to_owned(),
                attributes: i["attributes"].clone(),
            });
        }
    }
    out
}

/// The planned instances of `terraform show -json PLAN` (resources in `planned_values`, data
/// sources read at plan in `prior_state`), child modules included.
pub fn from_plan(plan: &Value, source: &str) -> Vec<Record> {
    let mut out = Vec::new();
    module(&plan["planned_values"]["root_module"], source, &mut out);
    let mut data = Vec::new();
    module(&plan["prior_state"]["values"]["root_module"], source, &mut data);
    out.extend(data.into_iter().filter(|r| r.address.contains("data.")));
    out
}

fn module(m: &Value, source: &str, out: &mut Vec<Record>) {
    for r in m["resources"].as_array().into_iter().flatten() {
        let kind = r["type"].as_str().unwrap_or_default();
        if wanted(kind) {
            out.push(Record {
                source: source.to_owned(),
                address: r["address"].as_str().unwrap_or_default().to_owned(),
                kind: kind.to_owned(),
                attributes: r["values"].clone(),
            });
        }
    }
    for c in m["child_modules"].as_array().into_iter().flatten() {
        module(c, source, out);
    }
}

/// Records with the same type and attributes once (the first source named).
pub fn distinct(records: &[Record]) -> Vec<Record> {
    let mut seen = std::collections::BTreeSet::new();
    records.iter().filter(|r| seen.insert(key(r))).cloned().collect()
}

fn key(r: &Record) -> String {
    // The id and owner token differ per run; what the values mean does not depend on them.
    let mut a = r.attributes.clone();
    if let Some(m) = a.as_object_mut() {
        m.remove("id");
        m.remove("owner_token");
    }
    format!("{} {a}", r.kind)
}

/// Writes the records of the state in `dir` to `EKSGPU_VALUES_LOG`, if set: a best effort that
/// never fails the test applying (the lane reports what it could not read).
pub fn log_state(dir: &Path, source: &str) {
    let Some(log) = std::env::var_os("EKSGPU_VALUES_LOG") else {
        return;
    };
    let Ok(text) = std::fs::read_to_string(dir.join("terraform.tfstate")) else {
        return;
    };
    let Ok(state) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    let log = Path::new(&log);
    let _ = std::fs::create_dir_all(log);
    for r in from_state(&state, source) {
        let k = key(&r);
        let name = format!("{:016x}.json", fnv(k.as_bytes()));
        let body = json!({"source": r.source, "address": r.address, "kind": r.kind, "attributes": r.attributes});
        // One file per distinct instance: parallel tests writing the same one write the same bytes.
        let tmp = log.join(format!(".{name}.{}", std::process::id()));
        if std::fs::write(&tmp, body.to_string()).is_ok() {
            let _ = std::fs::rename(&tmp, log.join(name));
        }
    }
}

/// Every record in the folder `EKSGPU_VALUES_LOG` names, sorted by source.
pub fn read_log(log: &Path) -> Vec<Record> {
    let mut out: Vec<Record> = std::fs::read_dir(log)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
        .map(|v| Record {
            source: v["source"].as_str().unwrap_or_default().to_owned(),
            address: v["address"].as_str().unwrap_or_default().to_owned(),
            kind: v["kind"].as_str().unwrap_or_default().to_owned(),
            attributes: v["attributes"].clone(),
        })
        .collect();
    out.sort_by(|a, b| (&a.source, &a.address).cmp(&(&b.source, &b.address)));
    out
}

/// FNV-1a: a stable file name for a record (std's hasher is seeded per process).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_instances_of_resources_and_data_sources_with_their_addresses() {
        let state = json!({"resources": [
            {"mode": "managed", "type": "eksgpu_node_strategy", "name": "s", "instances": [{"attributes": {"gpu_operator_values_yaml": "a: 1"}}]},
            {"module": "module.team", "mode": "data", "type": "eksgpu_gpu_stack", "name": "c", "instances": [{"index_key": "x", "attributes": {}}]},
            {"mode": "managed", "type": "eksgpu_burst_scaler", "name": "b", "instances": [{"attributes": {}}]}
        ]});
        let r = from_state(&state, "t");
        let addrs: Vec<&str> = r.iter().map(|r| r.address.as_str()).collect();
        assert_eq!(
            addrs,
            ["eksgpu_node_strategy.s", "module.team.data.eksgpu_gpu_stack.c[\"x\"]"]
        );
        assert_eq!(distinct(&[r[0].clone(), r[0].clone()]).len(), 1);
    }
}
