//! A simulated day of the burst scaler, closed loop: a synthetic demand curve,
//! on-prem GPUs serving first, cloud replicas that start serving a fixed cold
//! start after KEDA asks for them, and the same formula and replica arithmetic
//! as [`super::simulate`] ([`Scaling::poll`]) deciding every poll.
//!
//! Assumptions, stated so the picture can be judged: demand is the number of
//! requests in flight, linear between hourly points; on-prem serves up to
//! `onprem_capacity` at once; overflow goes to ready cloud replicas (up to
//! `per_cloud_replica` each) and the rest waits on-prem; the metrics KEDA reads
//! are exact and current (no scrape or query delay); removing a replica removes
//! the newest (a StatefulSet scales down from its highest ordinal). The day has two sites,
//! each with its own Prometheus; an outage of one holds the cloud replicas as
//! [`super::simulate`] says (the fallback), while the load goes on.

use super::simulate::{Failing, Sample, Scaling};
use super::{BurstScaler, SiteId};

/// A time when one site's Prometheus cannot be queried (down, or refusing the credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage {
    pub site: SiteId,
    /// Minutes since midnight, the first and the last minute it fails.
    pub from: u32,
    pub to: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Day {
    /// Requests in flight at each whole hour, 00:00 to 24:00.
    pub demand: [f64; 25],
    /// Replicas on-prem (fixed: on-prem GPUs do not scale).
    pub onprem_replicas: u32,
    /// Requests one replica runs at once, on-prem or in the cloud.
    pub per_replica: f64,
    /// From KEDA asking for a cloud replica to that replica serving.
    pub cold_start_minutes: u32,
    pub outages: Vec<Outage>,
}

impl Day {
    pub fn onprem_capacity(&self) -> f64 {
        f64::from(self.onprem_replicas) * self.per_replica
    }

    /// Requests in flight at `minute` (0..=1440).
    pub fn demand_at(&self, minute: u32) -> f64 {
        let h = (minute / 60).min(23) as usize;
        let frac = f64::from(minute - h as u32 * 60) / 60.0;
        self.demand[h] + (self.demand[h + 1] - self.demand[h]) * frac
    }

    /// Which sites fail at `minute`.
    pub fn failing_at(&self, minute: u32) -> Failing {
        let down = |site| {
            self.outages
                .iter()
                .any(|o| o.site == site && (o.from..=o.to).contains(&minute))
        };
        Failing {
            on_prem: down(SiteId::OnPrem),
            cloud: down(SiteId::Cloud),
        }
    }
}

/// An office-hours day: quiet night, a morning peak past what on-prem runs, a
/// lunch dip, a longer afternoon peak, a slow evening; the cloud Prometheus (Amazon Managed
/// Prometheus) cannot be queried for 20 minutes at the bottom of the lunch dip, when the cloud
/// replicas would otherwise go.
pub fn synthetic_day() -> Day {
    Day {
        demand: [
            8.0, 6.0, 5.0, 5.0, 5.0, 6.0, 10.0, 18.0, 30.0, 44.0, 56.0, 60.0, 40.0, 36.0, 50.0, 58.0, 54.0, 40.0, 30.0,
            22.0, 18.0, 14.0, 10.0, 9.0, 8.0,
        ],
        onprem_replicas: 4,
        per_replica: 8.0,
        cold_start_minutes: 8,
        outages: vec![Outage {
            site: SiteId::Cloud,
            from: 12 * 60 + 45,
            to: 13 * 60 + 4,
        }],
    }
}

/// One poll of the day.
#[derive(Debug, Clone, PartialEq)]
pub struct Moment {
    pub seconds: u32,
    pub demand: f64,
    pub onprem_waiting: f64,
    pub cloud_running: f64,
    /// The formula's value at this poll (0, 1 or 2); `None` while a site fails.
    pub value: Option<f64>,
    pub failing: Failing,
    /// Cloud replicas KEDA and the HPA ask for.
    pub cloud_replicas: i64,
    /// Cloud replicas serving (asked for at least the cold start ago).
    pub cloud_ready: i64,
}

pub fn simulate_day(b: &BurstScaler, day: &Day) -> Vec<Moment> {
    let step = u32::try_from(b.polling_interval.max(1)).unwrap_or(15);
    let mut scaling = Scaling::new(b);
    // When each cloud replica asked for starts serving, oldest first.
    let mut ready_at: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    let mut t = 0;
    while t < 24 * 3600 {
        let demand = day.demand_at(t / 60);
        let ready = ready_at.iter().filter(|r| **r <= t).count();
        let overflow = (demand - day.onprem_capacity()).max(0.0);
        #[allow(clippy::cast_precision_loss)]
        let cloud_running = overflow.min(ready as f64 * day.per_replica);
        let sample = Sample {
            minute: t / 60,
            onprem_waiting: overflow - cloud_running,
            cloud_running,
            failing: day.failing_at(t / 60),
        };
        let decision = scaling.poll(t, sample);
        let asked = usize::try_from(decision.replicas).unwrap_or(0);
        while ready_at.len() < asked {
            ready_at.push(t + day.cold_start_minutes * 60);
        }
        ready_at.truncate(asked);
        out.push(Moment {
            seconds: t,
            demand,
            onprem_waiting: sample.onprem_waiting,
            cloud_running,
            value: decision.value,
            failing: sample.failing,
            cloud_replicas: decision.replicas,
            cloud_ready: i64::try_from(ready_at.iter().filter(|r| **r <= t).count()).unwrap_or(0),
        });
        t += step;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_day_bursts_at_the_peaks_and_is_quiet_at_night() {
        let b = super::super::seed_004_scaler();
        let day = synthetic_day();
        let moments = simulate_day(&b, &day);
        assert_eq!(moments.len(), 24 * 3600 / 15);
        let at = |h: u32, m: u32| moments.iter().find(|x| x.seconds == (h * 60 + m) * 60).unwrap();
        // Night: on-prem alone.
        assert!(
            moments
                .iter()
                .take_while(|x| x.seconds < 8 * 3600)
                .all(|x| x.cloud_replicas == 0)
        );
        // Morning peak: waiting past the scale-out threshold brings cloud replicas, up to the maximum.
        let first = moments.iter().find(|x| x.cloud_replicas > 0).unwrap();
        assert!(first.onprem_waiting > b.scale_out_threshold, "{first:?}");
        assert_eq!(at(11, 0).cloud_replicas, b.max_replicas);
        assert_eq!(at(11, 0).cloud_ready, b.max_replicas);
        // Cold start: nothing serves before it has passed.
        let since = first.seconds;
        assert!(
            moments
                .iter()
                .filter(|x| x.seconds < since + day.cold_start_minutes * 60)
                .all(|x| x.cloud_ready == 0)
        );
        // Evening: all cloud replicas gone.
        assert!(
            moments
                .iter()
                .filter(|x| x.seconds >= 20 * 3600)
                .all(|x| x.cloud_replicas == 0)
        );
        // The cloud Prometheus outage holds the replicas, whatever the load does.
        let outage: Vec<&Moment> = moments.iter().filter(|x| x.failing.cloud).collect();
        assert_eq!(outage.len(), 20 * 4);
        assert!(
            outage
                .iter()
                .all(|x| x.cloud_replicas == outage[0].cloud_replicas && x.value.is_none())
        );
        // Never more than asked for, never more than the maximum.
        assert!(
            moments
                .iter()
                .all(|x| x.cloud_ready <= x.cloud_replicas && x.cloud_replicas <= b.max_replicas)
        );
    }
}
