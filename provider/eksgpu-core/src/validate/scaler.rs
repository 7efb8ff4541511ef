//! Inputs of KEDA triggers: cron windows, their time zone, and the
//! Prometheus server address, as KEDA v2.20 parses them.

use super::{Validation, ValidationError};

const CRON: &str = "kedacore/keda v2.20.2 pkg/scalers/cron_scaler.go (cron.NewParser(Minute | Hour | Dom | Month | \
     Dow), no descriptors) with robfig/cron v3.0.1 parser.go";
const TZ: &str = "kedacore/keda v2.20.2 pkg/scalers/cron_scaler.go (time.LoadLocation); IANA tz database \
     theory.html, Names of timezones";
const PROMETHEUS: &str = "kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go (serverAddress + \
     \"/api/v1/query?...\"; credentials through authenticationRef, a TriggerAuthentication)";

const CRON_ACCEPTED: &str = "five fields, minute hour day-of-month month day-of-week, each *, ?, a number or name, \
     a range a-b, a step x/n, or a comma list of these, e.g. \"0 6 * * 1-5\"";

/// One cron field: its name, bounds and names (robfig/cron's).
struct Field {
    name: &'static str,
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FIELDS: [Field; 5] = [
    Field {
        name: "minute",
        min: 0,
        max: 59,
        names: &[],
    },
    Field {
        name: "hour",
        min: 0,
        max: 23,
        names: &[],
    },
    Field {
        name: "day of month",
        min: 1,
        max: 31,
        names: &[],
    },
    Field {
        name: "month",
        min: 1,
        max: 12,
        names: &MONTHS,
    },
    Field {
        name: "day of week",
        min: 0,
        max: 6,
        names: &DAYS,
    },
];

fn number_or_name(s: &str, f: &Field) -> Result<u32, String> {
    if let Some(i) = f.names.iter().position(|n| n.eq_ignore_ascii_case(s)) {
        // Months count from 1, days from 0.
        return Ok(f.min + i as u32);
    }
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{s:?} is not a number{}",
            if f.names.is_empty() { "" } else { " or name" }
        ));
    }
    s.parse().map_err(|_| format!("{s:?} is too large"))
}

/// Checks one comma-separated item of a field: `*`, `?`, `a`, `a-b`, each with an optional `/step`.
fn check_item(item: &str, f: &Field) -> Result<(), String> {
    let (range, step) = match item.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (item, None),
    };
    if let Some(step) = step {
        if step.contains('/') {
            return Err("more than one '/'".into());
        }
        if step.is_empty() || !step.bytes().all(|b| b.is_ascii_digit()) || step.parse::<u32>().map_or(true, |n| n == 0)
        {
            return Err(format!("the step {step:?} is not a positive number"));
        }
    }
    if range == "*" || range == "?" {
        return Ok(());
    }
    let (low, high) = match range.split_once('-') {
        Some((l, h)) => (l, Some(h)),
        None => (range, None),
    };
    let low = number_or_name(low, f)?;
    let high = match high {
        Some(h) if h.contains('-') => return Err("more than one '-'".into()),
        Some(h) => number_or_name(h, f)?,
        None => low,
    };
    if low < f.min || high > f.max {
        return Err(format!("outside {}–{}", f.min, f.max));
    }
    if low > high {
        return Err(format!("the range {low}-{high} runs backwards"));
    }
    Ok(())
}

/// A cron schedule as KEDA's cron scaler parses `start` and `end`: exactly
/// five fields. Descriptors (`@daily`) are refused as KEDA refuses them; a
/// `TZ=` / `CRON_TZ=` prefix is refused too, since the window's `timezone`
/// says the zone (robfig/cron would let the prefix override it silently).
pub fn cron_schedule(s: &str) -> Validation {
    let err = |why: String| {
        Err(ValidationError::new(
            format!("{s:?} is not a cron schedule KEDA accepts: {why}."),
            CRON_ACCEPTED,
            CRON,
        ))
    };
    let trimmed = s.trim_start();
    if trimmed.starts_with('@') {
        return err("KEDA's cron scaler takes no descriptors such as @daily".into());
    }
    if trimmed.starts_with("TZ=") || trimmed.starts_with("CRON_TZ=") {
        return err("set the zone with timezone, not a TZ= prefix".into());
    }
    five_fields(s).or_else(err)
}

/// The five fields of a standard cron line (robfig/cron v3.0.1 `ParseStandard` without
/// descriptors), or why they are not.
pub(crate) fn five_fields(s: &str) -> Result<(), String> {
    let fields: Vec<&str> = s.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!("it has {} fields, not 5", fields.len()));
    }
    for (value, f) in fields.iter().zip(FIELDS.iter()) {
        for item in value.split(',') {
            if item.is_empty() {
                return Err(format!("the {} field {value:?} has an empty list item", f.name));
            }
            if let Err(why) = check_item(item, f) {
                return Err(format!("the {} field {value:?}: {why}", f.name));
            }
        }
    }
    Ok(())
}

/// `s` with any user-info of its authority (`user:pass@`) replaced by `***@`.
fn without_user_info(s: &str) -> String {
    let Some(scheme_end) = s.find("://").map(|i| i + 3) else {
        return s.to_owned();
    };
    let rest = &s[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{}***{}", &s[..scheme_end], &rest[at..]),
        None => s.to_owned(),
    }
}

/// The shape of an IANA time zone name such as `Asia/Seoul`, `UTC`,
/// `America/Argentina/Buenos_Aires` or `Etc/GMT+9`: `/`-separated parts of
/// ASCII letters, digits, `.`, `_`, `+`, `-`, none empty, `.` or `..`, or
/// starting with `-`. Whether the zone exists is for the tz database on the
/// KEDA operator's image to say; `Local` is refused as it names no zone.
pub fn time_zone(s: &str) -> Validation {
    let part_ok = |p: &str| {
        !p.is_empty()
            && p != "."
            && p != ".."
            && !p.starts_with('-')
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
    };
    let starts_with_letter = s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic);
    if starts_with_letter && s != "Local" && s.split('/').all(part_ok) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not an IANA time zone name."),
        "a tz database name such as Asia/Seoul, Europe/Berlin, America/New_York or UTC",
        TZ,
    ))
}

/// A Prometheus server address for KEDA's `serverAddress`: an `http` or
/// `https` URL with a host, an optional port and path, and no user-info
/// (credentials belong in a TriggerAuthentication referenced by
/// `authenticationRef`, not in the ScaledObject), query or fragment (KEDA
/// appends `/api/v1/query?...`).
pub fn prometheus_address(s: &str) -> Validation {
    let shown = without_user_info(s);
    let err = |why: &str| {
        Err(ValidationError::new(
            // Never echo credentials: diagnostics reach terminals and logs.
            format!("{shown:?} is not a Prometheus address KEDA can use: {why}."),
            "http:// or https://, a host, an optional port and path, e.g. http://prometheus.monitoring:9090",
            PROMETHEUS,
        ))
    };
    let lower = s.get(..8).map(str::to_ascii_lowercase).unwrap_or_default();
    let rest = if lower.starts_with("http://") {
        &s[7..]
    } else if lower.starts_with("https://") {
        &s[8..]
    } else {
        return err("the scheme must be http or https");
    };
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return err("it contains spaces or control characters");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    if authority.contains('@') {
        return err(
            "it carries credentials (user-info); put them in a TriggerAuthentication (authModes basic or bearer) \
             and reference it with KEDA's authenticationRef",
        );
    }
    if path.contains(['?', '#']) {
        return err("it has a query or fragment, but KEDA appends /api/v1/query?... to it");
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let is_v6 = |h: &str| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        // After `]` comes nothing or `:port`.
        match v6.split_once(']') {
            Some((h, "")) if is_v6(h) => (h, None),
            Some((h, rest)) if is_v6(h) && rest.starts_with(':') => (h, Some(&rest[1..])),
            _ => return err("the IPv6 host is malformed"),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let host_ok = !host.is_empty()
        && (authority.starts_with('[')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_')));
    if !host_ok {
        return err("it has no valid host");
    }
    if let Some(p) = port
        && !(p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok_and(|n| n > 0))
    {
        return err("the port is not a number from 1 to 65535");
    }
    Ok(())
}

#[cfg(test)]
mod tests;
