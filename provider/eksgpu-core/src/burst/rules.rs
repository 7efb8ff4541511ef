//! Checks of a burst scaler (offline). One function per rule code;
//! `check_burst_scaler` calls them in the order they report.

use super::BurstScaler;
use crate::rules::{Code, Step, Violation};

pub fn check_burst_scaler(b: &BurstScaler) -> Vec<Violation> {
    let mut out = Vec::new();
    scaler_settings(b, &mut out);
    keda_version(b, &mut out);
    spot_interruption_handling(b, &mut out);
    pre_warm_windows(b, &mut out);
    out.extend(super::check_sites(b));
    out
}

fn attr(a: &'static str) -> Vec<Step> {
    vec![Step::Attr(a)]
}

/// EKSGPU111: thresholds in order, replica bounds, intervals and a name KEDA can derive its HPA's from.
fn scaler_settings(b: &BurstScaler, out: &mut Vec<Violation>) {
    if b.scale_in_threshold >= b.hold_threshold {
        out.push(Violation::new(
            Code::EKSGPU111,
            attr("scale_in_threshold"),
            format!(
                "scale_in_threshold ({}) must be below hold_threshold ({}): between them the scaler holds.",
                b.scale_in_threshold, b.hold_threshold
            ),
        ));
    }
    if b.scale_in_threshold < 0.0 || b.scale_out_threshold < 0.0 {
        out.push(Violation::new(
            Code::EKSGPU111,
            attr("scale_out_threshold"),
            "Thresholds are request counts, 0 or more.".into(),
        ));
    }
    if b.max_replicas < 1 {
        out.push(Violation::new(
            Code::EKSGPU111,
            attr("max_replicas"),
            format!("max_replicas is {}; it must be at least 1.", b.max_replicas),
        ));
    }
    if b.min_replicas < 0 || b.min_replicas > b.max_replicas {
        out.push(Violation::new(
            Code::EKSGPU111,
            attr("min_replicas"),
            format!(
                "min_replicas ({}) must be between 0 and max_replicas ({}).",
                b.min_replicas, b.max_replicas
            ),
        ));
    }
    if b.polling_interval < 1 || b.cooldown_period < 0 {
        out.push(Violation::new(
            Code::EKSGPU111,
            attr("polling_interval"),
            "polling_interval must be at least 1 s and cooldown_period 0 s or more.".into(),
        ));
    }
    // KEDA admission: the generated HPA `keda-hpa-<name>` must be a valid name (≤ 63).
    if b.name.len() > 54 {
        out.push(Violation::new(
            Code::EKSGPU111,
            attr("name"),
            format!(
                "{:?} is longer than 54 characters; KEDA's HPA name keda-hpa-<name> would exceed 63.",
                b.name
            ),
        ));
    }
}

/// EKSGPU112 (no `scalingModifiers` before KEDA 2.12) or EKSGPU113 (no fallback that holds
/// the current size before 2.18).
fn keda_version(b: &BurstScaler, out: &mut Vec<Violation>) {
    match b.keda_version {
        v if v < (2, 12) => out.push(Violation::new(
            Code::EKSGPU112,
            attr("keda_version"),
            format!("KEDA {}.{} has no scalingModifiers formula (added in 2.12).", v.0, v.1),
        )),
        v if v < (2, 18) => out.push(Violation::new(
            Code::EKSGPU113,
            attr("keda_version"),
            format!(
                "KEDA {}.{} cannot hold the current size when Prometheus fails (fallback behavior: 2.17; on a Value metric: 2.18): the ScaledObject is rendered without a fallback.",
                v.0, v.1
            ),
        )),
        _ => {}
    }
}

/// EKSGPU114: a Spot target without interruption handling.
fn spot_interruption_handling(b: &BurstScaler, out: &mut Vec<Violation>) {
    if b.target_capacity_types.iter().any(|c| c == "spot") && !b.spot_interruption_handling {
        out.push(Violation::new(
            Code::EKSGPU114,
            attr("spot_interruption_handling"),
            "The target runs on Spot capacity and spot_interruption_handling is not set.".into(),
        ));
    }
}

/// EKSGPU111: each pre-warm window has a time zone and two different 5-field cron expressions.
fn pre_warm_windows(b: &BurstScaler, out: &mut Vec<Violation>) {
    for (i, w) in b.pre_warm.iter().enumerate() {
        let five = |s: &str| s.split_whitespace().count() == 5;
        let at = |attr: &'static str| vec![Step::Attr("pre_warm"), Step::Index(i), Step::Attr(attr)];
        // Each violation at the attribute that has it (KEDA v2.20 cron scaler: 5-field
        // `start` and `end`, a `timezone`; https://keda.sh/docs/2.20/scalers/cron/).
        for (attr, value) in [("start", &w.start), ("end", &w.end)] {
            if !five(value) {
                out.push(Violation::new(
                    Code::EKSGPU111,
                    at(attr),
                    format!("{attr} {value:?} is not a 5-field cron expression."),
                ));
            }
        }
        if five(&w.start) && w.start == w.end {
            out.push(Violation::new(
                Code::EKSGPU111,
                at("end"),
                "A pre-warm window's end must differ from its start.".into(),
            ));
        }
        if w.timezone.is_empty() {
            out.push(Violation::new(
                Code::EKSGPU111,
                at("timezone"),
                "A pre-warm window needs a time zone.".into(),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::burst::simulate::tests::seed_scaler;

    fn codes(b: &BurstScaler) -> Vec<Code> {
        check_burst_scaler(b).into_iter().map(|v| v.code).collect()
    }

    #[test]
    fn the_seed_settings_are_clean() {
        assert_eq!(codes(&seed_scaler()), Vec::<&str>::new());
    }

    #[test]
    fn eksgpu111_orders_and_ranges() {
        let mut b = seed_scaler();
        b.scale_in_threshold = 10.0;
        assert_eq!(codes(&b), [Code::EKSGPU111]);
        let mut b = seed_scaler();
        b.min_replicas = 4;
        assert_eq!(codes(&b), [Code::EKSGPU111]);
        let mut b = seed_scaler();
        b.pre_warm = vec![crate::burst::PreWarm {
            timezone: "Asia/Seoul".into(),
            start: "0 9 * * *".into(),
            end: "0 9 * * *".into(),
        }];
        assert_eq!(codes(&b), [Code::EKSGPU111]);
    }

    #[test]
    fn eksgpu111_points_at_the_pre_warm_attribute() {
        let mut b = seed_scaler();
        b.pre_warm = vec![
            crate::burst::PreWarm {
                timezone: "Asia/Seoul".into(),
                start: "0 9 * * *".into(),
                end: "0 18 * * *".into(),
            },
            crate::burst::PreWarm {
                timezone: String::new(),
                start: "0 9 * *".into(),
                end: "0 18 * * *".into(),
            },
        ];
        let paths: Vec<_> = check_burst_scaler(&b).into_iter().map(|v| v.path).collect();
        let at = |attr| vec![Step::Attr("pre_warm"), Step::Index(1), Step::Attr(attr)];
        assert_eq!(paths, [at("start"), at("timezone")]);
    }

    #[test]
    fn eksgpu112_113_keda_versions() {
        let mut b = seed_scaler();
        b.keda_version = (2, 11);
        assert_eq!(codes(&b), [Code::EKSGPU112]);
        b.keda_version = (2, 17);
        assert_eq!(codes(&b), [Code::EKSGPU113]);
        assert!(
            crate::burst::manifest(&b)["spec"].get("fallback").is_none(),
            "no fallback where KEDA cannot do it"
        );
        b.keda_version = (2, 18);
        assert_eq!(
            crate::burst::manifest(&b)["spec"]["fallback"]["behavior"],
            "currentReplicas"
        );
    }

    #[test]
    fn eksgpu114_spot_without_interruption_handling() {
        let mut b = seed_scaler();
        b.target_capacity_types = vec!["spot".into(), "on-demand".into()];
        assert_eq!(codes(&b), [Code::EKSGPU114]);
        b.spot_interruption_handling = true;
        assert_eq!(codes(&b), Vec::<&str>::new());
    }

    #[test]
    fn the_formula_encodes_out_hold_in() {
        let mut b = seed_scaler();
        assert_eq!(
            crate::burst::formula(&b),
            "onprem_waiting > 20 || cloud_running > 10 ? 2 : (cloud_running < 5 ? 0 : 1)"
        );
        b.pre_warm = vec![crate::burst::PreWarm {
            timezone: "UTC".into(),
            start: "0 9 * * 1-5".into(),
            end: "0 18 * * 1-5".into(),
        }];
        assert!(crate::burst::formula(&b).contains("cloud_running < 5 && prewarm_0 == 0 ? 0 : 1"));
        let m = crate::burst::manifest(&b);
        assert_eq!(m["spec"]["triggers"][2]["type"], "cron");
        assert_eq!(m["spec"]["advanced"]["scalingModifiers"]["metricType"], "Value");
        assert_eq!(crate::burst::read_back(&b, &m, [None, None]), b);
    }
}
