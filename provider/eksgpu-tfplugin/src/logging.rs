//! Provider logs in the form go-plugin forwards into Terraform's own log:
//! one JSON object per line on stderr with hclog's `@level`, `@message`,
//! `@timestamp` and `@module` keys plus the event's fields (hashicorp/go-hclog JSON output).

use std::fmt::Write as _;
use std::io::Write as _;

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};

mod redact;

pub use redact::{REDACTED, register_sensitive};

/// Installs the stderr JSON logger. The level comes from `TF_LOG_PROVIDER`,
/// else `TF_LOG` (Terraform filters again on its side); default WARN.
pub fn init(module: &'static str) {
    init_muting(module, &[]);
}

/// Like [`init`], and events of the `muted` targets (and their submodules) at the
/// given level or more verbose never reach the log (`Level::ERROR`: every event):
/// for libraries whose logs carry secrets.
pub fn init_muting(module: &'static str, muted: &'static [(&'static str, Level)]) {
    let level = std::env::var("TF_LOG_PROVIDER")
        .or_else(|_| std::env::var("TF_LOG"))
        .ok()
        .and_then(|s| parse_level(&s))
        .unwrap_or(Level::WARN);
    let subscriber = tracing_subscriber::registry().with(HclogLayer {
        module,
        max: level,
        muted,
    });
    let _ = tracing::subscriber::set_global_default(subscriber);
}

fn parse_level(s: &str) -> Option<Level> {
    match s.trim().to_ascii_uppercase().as_str() {
        "TRACE" | "JSON" => Some(Level::TRACE),
        "DEBUG" => Some(Level::DEBUG),
        "INFO" => Some(Level::INFO),
        "WARN" => Some(Level::WARN),
        "ERROR" => Some(Level::ERROR),
        _ => None,
    }
}

struct HclogLayer {
    module: &'static str,
    max: Level,
    muted: &'static [(&'static str, Level)],
}

impl HclogLayer {
    fn logs(&self, metadata: &tracing::Metadata<'_>) -> bool {
        let target = metadata.target();
        let muted = |(m, from): &(&str, Level)| {
            (target == *m || target.strip_prefix(*m).is_some_and(|rest| rest.starts_with("::")))
                && *metadata.level() >= *from
        };
        // Level ordering in tracing: TRACE > DEBUG > … > ERROR ("more verbose is greater").
        *metadata.level() <= self.max
            && !target.starts_with("h2")
            && !target.starts_with("hyper")
            && !self.muted.iter().any(muted)
    }
}

impl<S: Subscriber> Layer<S> for HclogLayer {
    fn enabled(&self, metadata: &tracing::Metadata<'_>, _ctx: Context<'_, S>) -> bool {
        self.logs(metadata)
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let line = format_event(self.module, event);
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(line.as_bytes());
    }
}

pub(crate) fn format_event(module: &str, event: &Event<'_>) -> String {
    let mut fields = JsonFields::default();
    event.record(&mut fields);
    let mut obj = serde_json::Map::new();
    obj.insert("@level".into(), hclog_level(*event.metadata().level()).into());
    obj.insert(
        "@message".into(),
        redact::redact(fields.message.unwrap_or_default()).into(),
    );
    obj.insert("@module".into(), module.into());
    obj.insert("@timestamp".into(), timestamp().into());
    obj.insert("target".into(), event.metadata().target().into());
    for (k, v) in fields.fields {
        let v = match v {
            serde_json::Value::String(s) => redact::redact(s).into(),
            v => v,
        };
        obj.insert(k, v);
    }
    let mut line = serde_json::Value::Object(obj).to_string();
    line.push('\n');
    line
}

fn hclog_level(level: Level) -> &'static str {
    match level {
        Level::TRACE => "trace",
        Level::DEBUG => "debug",
        Level::INFO => "info",
        Level::WARN => "warn",
        Level::ERROR => "error",
    }
}

/// RFC 3339 in UTC with microseconds, as hclog writes (`2006-01-02T15:04:05.000000Z07:00`).
fn timestamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    let mut s = String::with_capacity(27);
    let _ = write!(
        s,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_micros()
    );
    s
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[derive(Default)]
struct JsonFields {
    message: Option<String>,
    fields: Vec<(String, serde_json::Value)>,
}

impl Visit for JsonFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_owned());
        } else {
            self.fields.push((field.name().to_owned(), value.into()));
        }
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.fields.push((field.name().to_owned(), value.into()));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.fields.push((field.name().to_owned(), value.into()));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.fields.push((field.name().to_owned(), value.into()));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let text = format!("{value:?}");
        if field.name() == "message" {
            self.message = Some(text);
        } else {
            self.fields.push((field.name().to_owned(), text.into()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_gregorian() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_819), (2027, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
    }

    #[test]
    fn levels_follow_terraform_names() {
        assert_eq!(parse_level("debug"), Some(Level::DEBUG));
        assert_eq!(parse_level("JSON"), Some(Level::TRACE));
        assert_eq!(parse_level("off"), None);
    }

    #[test]
    fn muted_targets_never_log() {
        let layer = HclogLayer {
            module: "provider.eksgpu",
            max: Level::TRACE,
            muted: &[
                ("aws_sigv4", Level::ERROR),
                ("aws_smithy_runtime::client::orchestrator", Level::TRACE),
            ],
        };
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Probe(HclogLayer, std::sync::Arc<std::sync::Mutex<Vec<String>>>);
        impl<S: Subscriber> Layer<S> for Probe {
            fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
                if self.0.logs(event.metadata())
                    && let Ok(mut v) = self.1.lock()
                {
                    v.push(event.metadata().target().to_owned());
                }
            }
        }
        let subscriber = tracing_subscriber::registry().with(Probe(layer, seen.clone()));
        tracing::subscriber::with_default(subscriber, || {
            tracing::trace!(target: "aws_sigv4::http_request::sign", "canonical request");
            tracing::trace!(target: "aws_sigv4", "signing");
            tracing::trace!(target: "aws_sigv4x", "a different crate");
            tracing::trace!(target: "eksgpu_cloud", "ours");
            tracing::trace!(target: "aws_smithy_runtime::client::orchestrator", "input");
            tracing::debug!(target: "aws_smithy_runtime::client::orchestrator", "beginning attempt #1");
        });
        assert_eq!(
            *seen.lock().unwrap(),
            ["aws_sigv4x", "eksgpu_cloud", "aws_smithy_runtime::client::orchestrator"]
        );
    }

    #[test]
    fn events_become_hclog_json() {
        struct Capture(std::sync::Arc<std::sync::Mutex<Vec<String>>>);
        impl<S: Subscriber> Layer<S> for Capture {
            fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
                if let Ok(mut v) = self.0.lock() {
                    v.push(format_event("provider.eksgpu", event));
                }
            }
        }
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry().with(Capture(lines.clone()));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(cluster = "gpu", calls = 2u64, "described cluster");
        });
        let line = lines.lock().unwrap()[0].clone();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["@level"], "info");
        assert_eq!(v["@message"], "described cluster");
        assert_eq!(v["@module"], "provider.eksgpu");
        assert_eq!(v["cluster"], "gpu");
        assert_eq!(v["calls"], 2);
        assert!(v["@timestamp"].as_str().unwrap().ends_with('Z'));
    }
}
