//! HAMi.

use super::{Found, lands_on, one, pod_spec, strings, tolerates};
use crate::helm::{Record, Rendered};

/// HAMi v2.10.0 (`templates/device-plugin/daemonsetnvidia.yaml`).
pub(super) fn hami(record: &Record, r: &Rendered, f: &mut Found) {
    let Some(ds) = one(r, "DaemonSet", "device-plugin/daemonsetnvidia.yaml", f) else {
        return;
    };
    let spec = pod_spec(ds);
    let labels = strings(&record.attributes["node_labels"]);
    if strings(&spec["nodeSelector"]).is_empty() {
        f.problems
            .push("HAMi's device plugin has no node selector: it would land on every GPU node".into());
    }
    if !lands_on(spec, &labels) {
        f.problems.push(format!(
            "HAMi's device plugin (nodeSelector {}) does not land on nodes with the pool's node_labels {labels:?}",
            spec["nodeSelector"]
        ));
    }
    let default = (
        "nvidia.com/gpu".to_owned(),
        Some("true".to_owned()),
        "NoSchedule".to_owned(),
    );
    if !tolerates(&spec["tolerations"], &default) {
        f.problems.push(
            "HAMi's device plugin does not tolerate GPU pools' default taint nvidia.com/gpu=true:NoSchedule".into(),
        );
    }
}
