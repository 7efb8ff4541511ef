//! What the ScaledObject will do, before deploying it: the formula and the
//! HPA's `Value` arithmetic replayed over a recorded load curve, one decision
//! per KEDA poll.
//!
//! Model (KEDA v2.20 with the HPA, simplified and stated so it can be checked):
//! at 0 replicas KEDA activates the target (to max(min, 1)) when the formula
//! exceeds the activation target 0.5; otherwise the HPA asks for
//! ceil(replicas × value / 1), at most doubling per minute on the way up and,
//! on the way down, the highest request of the last 5 minutes, one replica a
//! minute; KEDA returns the target to `min_replicas` once the formula has been
//! at or below 0.5 for `cooldown_period`. Metrics are sampled per minute.
//!
//! Two sites, two Prometheus servers: when either cannot be queried (down, or refusing the
//! credentials), its trigger errors and the formula cannot be evaluated. The HPA then gets an
//! error for the composite metric for `failureThreshold` polls and after them the fallback's
//! `currentReplicas` (kedacore/keda v2.20.2 pkg/fallback/fallback.go, pkg/scaling/scale_handler.go
//! L757-768): either way the size holds. KEDA neither activates from zero nor scales to zero
//! while a trigger errors with a fallback set (pkg/scaling/executor/scale_scaledobjects.go L86-92),
//! and it does not refresh the last active time, so the quiet period runs on.

use super::BurstScaler;

/// Which sites' Prometheus cannot be queried at a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Failing {
    pub on_prem: bool,
    pub cloud: bool,
}

impl Failing {
    pub fn any(self) -> bool {
        self.on_prem || self.cloud
    }

    /// In words, for the docs' table: `on-prem`, `cloud`, `both`, or empty.
    pub fn words(self) -> &'static str {
        match (self.on_prem, self.cloud) {
            (true, true) => "both",
            (true, false) => "on-prem",
            (false, true) => "cloud",
            (false, false) => "",
        }
    }
}

/// One recorded minute: requests waiting on-prem, requests running in the cloud, and which
/// site's Prometheus failed to answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// Minutes since midnight.
    pub minute: u32,
    pub onprem_waiting: f64,
    pub cloud_running: f64,
    pub failing: Failing,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub seconds: u32,
    pub sample: Sample,
    /// The formula's value; `None` while a site fails (it cannot be evaluated).
    pub value: Option<f64>,
    pub replicas: i64,
    pub action: &'static str,
}

impl Decision {
    pub fn clock(&self) -> String {
        format!(
            "{:02}:{:02}:{:02}",
            self.seconds / 3600,
            self.seconds / 60 % 60,
            self.seconds % 60
        )
    }
}

/// The formula of `formula()`, evaluated natively (pre-warm windows closed).
fn value(b: &BurstScaler, s: &Sample) -> f64 {
    if s.onprem_waiting > b.scale_out_threshold || s.cloud_running > b.hold_threshold {
        2.0
    } else if s.cloud_running < b.scale_in_threshold {
        0.0
    } else {
        1.0
    }
}

/// KEDA and the HPA between polls: the replica count and what it remembers
/// (recent recommendations, last scale times, when the formula went quiet).
#[derive(Debug, Clone)]
pub struct Scaling<'b> {
    b: &'b BurstScaler,
    replicas: i64,
    history: Vec<(u32, i64)>,
    last_up: u32,
    last_down: u32,
    quiet_since: Option<u32>,
}

impl<'b> Scaling<'b> {
    pub fn new(b: &'b BurstScaler) -> Self {
        Self {
            b,
            replicas: b.min_replicas,
            history: Vec::new(),
            last_up: 0,
            last_down: 0,
            quiet_since: None,
        }
    }

    /// One KEDA poll at `t` seconds with the metrics of `sample`.
    pub fn poll(&mut self, t: u32, sample: Sample) -> Decision {
        if sample.failing.any() {
            return self.hold_on_failure(t, sample);
        }
        let b = self.b;
        let floor = b.min_replicas.max(1);
        let v = value(b, &sample);
        let active = v > 0.5;
        self.quiet_since = if active { None } else { self.quiet_since.or(Some(t)) };
        let before = self.replicas;
        if self.replicas == 0 {
            if active {
                self.replicas = floor.min(b.max_replicas);
            }
        } else {
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            let raw = ((self.replicas as f64 * v).ceil() as i64).clamp(floor, b.max_replicas);
            self.history.push((t, raw));
            self.history.retain(|(at, _)| t - at < 300);
            if raw > self.replicas && t >= self.last_up + 60 {
                self.replicas = raw.min(self.replicas * 2);
                self.last_up = t;
            } else if raw < self.replicas && t >= self.last_down + 60 {
                let stabilized = self.history.iter().map(|(_, r)| *r).max().unwrap_or(raw);
                if stabilized < self.replicas {
                    self.replicas -= 1;
                    self.last_down = t;
                }
            }
            if self
                .quiet_since
                .is_some_and(|q| t - q >= u32::try_from(b.cooldown_period).unwrap_or(300))
                && b.min_replicas == 0
            {
                self.replicas = 0;
                self.history.clear();
            }
        }
        // The formula's decision; the replica count shows what KEDA and the HPA made of it.
        let action = match v {
            x if x >= 2.0 => "scale out",
            x if x >= 1.0 => "hold",
            _ if before == 0 && self.replicas == 0 => "idle",
            _ => "scale in",
        };
        Decision {
            seconds: t,
            sample,
            value: Some(v),
            replicas: self.replicas,
            action,
        }
    }

    /// A poll while a site fails: the size holds (the HPA's recommendation is the current size,
    /// kept in its stabilization window), and the quiet period runs on.
    fn hold_on_failure(&mut self, t: u32, sample: Sample) -> Decision {
        if self.replicas > 0 {
            self.history.push((t, self.replicas));
            self.history.retain(|(at, _)| t - at < 300);
        }
        self.quiet_since = self.quiet_since.or(Some(t));
        Decision {
            seconds: t,
            sample,
            value: None,
            replicas: self.replicas,
            action: "hold (fallback)",
        }
    }
}

pub fn simulate(b: &BurstScaler, curve: &[Sample]) -> Vec<Decision> {
    let Some(first) = curve.first() else { return Vec::new() };
    let last = curve.last().map_or(first.minute, |s| s.minute);
    let step = u32::try_from(b.polling_interval.max(1)).unwrap_or(15);
    let mut scaling = Scaling::new(b);
    let mut out = Vec::new();
    let mut t = first.minute * 60;
    while t <= last * 60 + 59 {
        let sample = *curve.iter().rev().find(|s| s.minute * 60 <= t).unwrap_or(first);
        out.push(scaling.poll(t, sample));
        t += step;
    }
    out
}

/// A recorded morning: on-prem waiting requests rise past 20 by 10:15, cloud
/// replicas serve ~20 running requests by 10:23, then load falls off.
pub fn seed_004_load_curve() -> Vec<Sample> {
    let at = |h: u32, m: u32, w: f64, c: f64| Sample {
        minute: h * 60 + m,
        onprem_waiting: w,
        cloud_running: c,
        failing: Failing::default(),
    };
    let mut curve = Vec::new();
    for m in 0..=14 {
        curve.push(at(10, m, f64::from(m * 14) / 10.0, 0.0)); // 0 → 19.6, below the threshold
    }
    curve.push(at(10, 15, 21.0, 0.0)); // saturation: on-prem queue past 20
    for m in 16..=22 {
        curve.push(at(10, m, 24.0, f64::from((m - 15) * 15) / 10.0)); // cloud replicas starting (≈8 min to serve)
    }
    for m in 23..=34 {
        curve.push(at(10, m, 18.0, 20.0)); // cloud serving ~20 running requests
    }
    for m in 35..=42 {
        curve.push(at(10, m, 6.0, 8.0)); // grey zone: 5 ≤ running ≤ 10
    }
    for m in 43..=59 {
        curve.push(at(10, m, 2.0, 2.0)); // load gone
    }
    curve
}

/// The same morning across two sites: the on-prem Prometheus cannot be queried at 10:15-10:16,
/// as the on-prem queue saturates, and the cloud one (Amazon Managed Prometheus) at 10:47-10:50,
/// when the load is gone.
pub fn seed_004_two_site_morning() -> Vec<Sample> {
    let mut curve = seed_004_load_curve();
    for s in &mut curve {
        s.failing = Failing {
            on_prem: (10 * 60 + 15..=10 * 60 + 16).contains(&s.minute),
            cloud: (10 * 60 + 47..=10 * 60 + 50).contains(&s.minute),
        };
    }
    curve
}

/// The reference settings (thresholds 20 / 10 / 5, max 3 replicas, 15 s polling,
/// 300 s cooldown), as the documented example.
pub fn seed_004_scaler() -> BurstScaler {
    BurstScaler {
        cluster_name: "gpu".into(),
        namespace: "llm".into(),
        name: "vllm-burst".into(),
        target_kind: "StatefulSet".into(),
        target_name: "vllm".into(),
        target_api_version: "apps/v1".into(),
        min_replicas: 0,
        max_replicas: 3,
        polling_interval: 15,
        cooldown_period: 300,
        prometheus_address: Some("http://prometheus.monitoring:9090".into()),
        on_prem: None,
        cloud: None,
        on_prem_waiting_query: "sum(vllm:num_requests_waiting{site=\"onprem\"})".into(),
        scale_out_threshold: 20.0,
        cloud_running_query: "sum(vllm:num_requests_running{site=\"cloud\"})".into(),
        hold_threshold: 10.0,
        scale_in_threshold: 5.0,
        pre_warm: vec![],
        keda_version: (2, 20),
        target_capacity_types: vec![],
        spot_interruption_handling: false,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::burst::BurstScaler;

    pub(crate) fn seed_scaler() -> BurstScaler {
        super::seed_004_scaler()
    }

    #[test]
    fn reproduces_the_seed_decisions() {
        let decisions = simulate(&seed_scaler(), &seed_004_load_curve());
        // The decisions per poll, as `cargo test -p eksgpu-core burst -- --nocapture` shows them.
        for d in &decisions {
            println!(
                "{} waiting={:>4} running={:>4} formula={} {:<9} replicas={}",
                d.clock(),
                d.sample.onprem_waiting,
                d.sample.cloud_running,
                d.value.unwrap_or(f64::NAN),
                d.action,
                d.replicas
            );
        }
        let at = |clock: &str| decisions.iter().find(|d| d.clock() == clock).unwrap();
        // Nothing before the on-prem queue saturates.
        assert!(
            decisions
                .iter()
                .take_while(|d| d.clock() < "10:15:00".into())
                .all(|d| d.replicas == 0)
        );
        // Scale out at the saturation point.
        assert_eq!(at("10:15:00").action, "scale out");
        assert_eq!(at("10:15:00").replicas, 1, "KEDA activates the target");
        assert!(at("10:17:00").replicas >= 2);
        assert_eq!(
            at("10:25:00").replicas,
            3,
            "max_replicas while cloud running is above the hold threshold"
        );
        // Hold in the grey zone.
        let grey: Vec<i64> = decisions
            .iter()
            .filter(|d| ("10:35:00".into()..="10:42:45".into()).contains(&d.clock()))
            .map(|d| d.replicas)
            .collect();
        assert!(grey.windows(2).all(|w| w[0] == w[1]), "{grey:?}");
        assert_eq!(grey[0], 3);
        // Scale in after the load falls, to zero after the cooldown.
        assert_eq!(at("10:43:00").action, "scale in");
        let last = decisions.last().unwrap();
        assert_eq!(last.replicas, 0);
        let zero_at = decisions
            .iter()
            .find(|d| d.seconds > 10 * 3600 + 43 * 60 && d.replicas == 0)
            .unwrap();
        assert_eq!(
            zero_at.clock(),
            "10:48:00",
            "cooldown_period = 300 s after the last active poll"
        );
    }

    /// Either site failing holds the size: the burst waits for the on-prem Prometheus, and the
    /// cloud replicas stay while the cloud one cannot be queried, then go at once (the quiet
    /// period ran on).
    #[test]
    fn the_two_site_morning_holds_while_a_site_fails() {
        let b = seed_scaler();
        let normal = simulate(&b, &seed_004_load_curve());
        let two = simulate(&b, &seed_004_two_site_morning());
        let at = |d: &[Decision], clock: &str| d.iter().find(|x| x.clock() == clock).unwrap().clone();
        // On-prem down as its queue saturates: nothing starts for two minutes, then the burst.
        assert_eq!(at(&normal, "10:15:00").replicas, 1);
        for clock in ["10:15:00", "10:15:45", "10:16:45"] {
            let d = at(&two, clock);
            assert_eq!((d.replicas, d.value, d.action), (0, None, "hold (fallback)"), "{clock}");
        }
        assert_eq!(at(&two, "10:17:00").replicas, 1);
        assert_eq!(at(&two, "10:18:15").replicas, 3);
        // Cloud down when the load has gone: 3 replicas held past 10:48, when they would go.
        assert_eq!(at(&normal, "10:48:00").replicas, 0);
        assert!(
            two.iter()
                .filter(|d| ("10:47:00".into()..="10:50:45".into()).contains(&d.clock()))
                .all(|d| d.replicas == 3 && d.action == "hold (fallback)")
        );
        assert_eq!(
            at(&two, "10:51:00").replicas,
            0,
            "the cooldown ran on during the failure"
        );
        // Never anything but hold while a site fails.
        for w in two.windows(2) {
            if w[1].sample.failing.any() {
                assert_eq!(w[1].replicas, w[0].replicas, "{}", w[1].clock());
            }
        }
    }
}
